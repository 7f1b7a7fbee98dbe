#ifndef MEDIANODE_CHAPTERS_H
#define MEDIANODE_CHAPTERS_H
#include <taglib/tfile.h>
#include <taglib/tstring.h>
#include <string>
#include <vector>

// A file's chapters as written, in the file's own order: ID3v2 CHAP frames in the order of the top-level
// CTOC (else by start time), Vorbis comment CHAPTERnnn by number, MP4's Nero chapter list (`chpl`) or else
// its QuickTime chapter track. Swift checks them (order, the item's length) and says what was wrong;
// here a start that cannot be read is only -1.
struct RawChapter {
    long long startMilliseconds = -1;
    TagLib::String title;
};

/// The chapters of an MP3 (ID3v2), Ogg Vorbis, Opus or FLAC (Vorbis comment), or MP4 file; empty for others.
std::vector<RawChapter> fileChapters(TagLib::File *file);

/// Milliseconds of a chapter time "HH:MM:SS.mmm" (also "MM:SS.mmm", "SS.mmm", any digits of fraction);
/// -1 when it is not one.
long long chapterTimeMilliseconds(const std::string &text);

#endif
