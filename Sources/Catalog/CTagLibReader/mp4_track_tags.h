#ifndef MEDIANODE_MP4_TRACK_TAGS_H
#define MEDIANODE_MP4_TRACK_TAGS_H
#include <taglib/mp4file.h>
#include <taglib/tstring.h>

// The iTunes-style items of an MP4 file's first track that has any: GStreamer's mp4mux writes the tags it
// receives as stream tags (taginject, a transcoding pipeline) into the track's own udta box, while TagLib
// reads only the movie's.
struct MP4TrackTags {
    TagLib::String title, artist, album, genre, composer, date;
    int track = 0, trackCount = 0, disc = 0, discCount = 0;
};

MP4TrackTags mp4TrackTags(TagLib::MP4::File *file);

#endif
