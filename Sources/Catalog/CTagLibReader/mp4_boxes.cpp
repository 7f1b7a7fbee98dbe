#include "mp4_boxes.h"

unsigned int mp4BigEndian(const TagLib::ByteVector &bytes, unsigned int offset, unsigned int count) {
    unsigned int value = 0;
    for (unsigned int index = 0; index < count; ++index) {
        value = value << 8 | static_cast<unsigned char>(bytes[offset + index]);
    }
    return value;
}

TagLib::List<MP4Box> mp4Boxes(TagLib::File *file, long start, long end) {
    TagLib::List<MP4Box> found;
    long offset = start;
    while (offset + 8 <= end) {
        file->seek(offset);
        const TagLib::ByteVector header = file->readBlock(16);
        if (header.size() < 8) break;
        long size = static_cast<long>(mp4BigEndian(header, 0, 4));
        long headerSize = 8;
        if (size == 1 && header.size() == 16) {
            size = static_cast<long>(header.toLongLong(8U));
            headerSize = 16;
        } else if (size == 0) {
            size = end - offset;
        }
        if (size < headerSize || offset + size > end) break;
        found.append(MP4Box{header.mid(4, 4), offset + headerSize, offset + size});
        offset += size;
    }
    return found;
}

const MP4Box *mp4Child(const TagLib::List<MP4Box> &list, const char *type) {
    for (const MP4Box &box : list) {
        if (box.type == type) return &box;
    }
    return nullptr;
}

TagLib::ByteVector mp4Content(TagLib::File *file, const MP4Box &box, long limit) {
    const long length = box.end - box.content;
    if (length <= 0 || length > limit) return TagLib::ByteVector();
    file->seek(box.content);
    return file->readBlock(static_cast<unsigned long>(length));
}
