#ifndef MEDIANODE_MP4_BOXES_H
#define MEDIANODE_MP4_BOXES_H
#include <taglib/tbytevector.h>
#include <taglib/tfile.h>
#include <taglib/tlist.h>

// MP4 box headers, read one by one: TagLib keeps its own atom parser private, and the track tags and the
// chapters both need boxes it does not read.

/// One box: its type, where its content starts and where it ends.
struct MP4Box {
    TagLib::ByteVector type;
    long content;
    long end;
};

/// `count` bytes at `offset` as a big-endian unsigned number (at most 4 bytes).
unsigned int mp4BigEndian(const TagLib::ByteVector &bytes, unsigned int offset, unsigned int count);

/// The boxes between `start` and `end`; stops at the first header that does not fit.
TagLib::List<MP4Box> mp4Boxes(TagLib::File *file, long start, long end);

/// The first box of `type` in `list`, or nullptr.
const MP4Box *mp4Child(const TagLib::List<MP4Box> &list, const char *type);

/// The content of a box, read whole when it is at most `limit` bytes; empty otherwise.
TagLib::ByteVector mp4Content(TagLib::File *file, const MP4Box &box, long limit);

#endif
