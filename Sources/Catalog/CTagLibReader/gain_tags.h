#ifndef MEDIANODE_GAIN_TAGS_H
#define MEDIANODE_GAIN_TAGS_H
#include <taglib/tfile.h>
#include <taglib/tstring.h>

// The loudness tags a file may carry, as written: ReplayGain ("-6.50 dB", peaks "0.988"), and Opus's
// R128 gains (a Q7.8 integer relative to -23 LUFS). Read from each format's own tag, as the release
// extras are; Swift parses and checks the text, so a tag with nonsense in it is only text here.
struct GainTags {
    TagLib::String trackGain;
    TagLib::String trackPeak;
    TagLib::String albumGain;
    TagLib::String albumPeak;
    TagLib::String r128TrackGain;
    TagLib::String r128AlbumGain;
};

/// The gain tags of a Vorbis comment (Ogg, Opus, FLAC), ID3v2 TXXX frames (MP3) or MP4 freeform items.
GainTags gainTags(TagLib::File *file);

#endif
