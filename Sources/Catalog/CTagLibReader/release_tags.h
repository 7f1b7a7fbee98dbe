#ifndef MEDIANODE_RELEASE_TAGS_H
#define MEDIANODE_RELEASE_TAGS_H
#include <taglib/tfile.h>
#include <taglib/tstring.h>

// What TagLib's format-neutral Tag interface leaves out: composer, and the disc and the counts of tracks
// and discs. Read from each format's own tag: the format-neutral properties() map rebuilds every field
// with upper-cased keys and cost as much as the rest of the read.
struct Extras {
    TagLib::String composer;
    int disc = 0;
    int discCount = 0;
    int trackCount = 0;
};

/// The extras of a Vorbis (Ogg, FLAC), ID3v2 (MP3) or MP4 file; empty for other formats.
Extras extras(TagLib::File *file);

/// "2/3" or "2": the number before any slash.
int leadingNumber(const TagLib::String &value);

#endif
