#include "mp4_track_tags.h"

#include <taglib/tbytevector.h>

namespace {

unsigned int bigEndian(const TagLib::ByteVector &bytes, unsigned int offset, unsigned int count) {
    unsigned int value = 0;
    for (unsigned int index = 0; index < count; ++index) {
        value = value << 8 | static_cast<unsigned char>(bytes[offset + index]);
    }
    return value;
}

// The payload of an item's first `data` box: size (4), "data", type and flags (4), locale (4), payload.
TagLib::ByteVector firstData(const TagLib::ByteVector &item) {
    if (item.size() < 16 || item.mid(4, 4) != "data") return TagLib::ByteVector();
    const unsigned int size = bigEndian(item, 0, 4);
    if (size < 16 || size > item.size()) return TagLib::ByteVector();
    return item.mid(16, size - 16);
}

// trkn and disk: two reserved bytes, the number, the count.
void pair(const TagLib::ByteVector &data, int &number, int &count) {
    if (data.size() < 6) return;
    number = static_cast<int>(bigEndian(data, 2, 2));
    count = static_cast<int>(bigEndian(data, 4, 2));
}

// One box: where its content starts and ends.
struct Box {
    TagLib::ByteVector type;
    long content;
    long end;
};

// The boxes between `start` and `end`, read header by header (TagLib keeps its own atom parser private).
TagLib::List<Box> boxes(TagLib::File *file, long start, long end) {
    TagLib::List<Box> found;
    long offset = start;
    while (offset + 8 <= end) {
        file->seek(offset);
        const TagLib::ByteVector header = file->readBlock(16);
        if (header.size() < 8) break;
        long size = static_cast<long>(bigEndian(header, 0, 4));
        long headerSize = 8;
        if (size == 1 && header.size() == 16) {
            size = static_cast<long>(header.toLongLong(8U));
            headerSize = 16;
        } else if (size == 0) {
            size = end - offset;
        }
        if (size < headerSize || offset + size > end) break;
        found.append(Box{header.mid(4, 4), offset + headerSize, offset + size});
        offset += size;
    }
    return found;
}

const Box *child(const TagLib::List<Box> &list, const char *type) {
    for (const Box &box : list) {
        if (box.type == type) return &box;
    }
    return nullptr;
}

}  // namespace

MP4TrackTags mp4TrackTags(TagLib::MP4::File *file) {
    MP4TrackTags tags;
    const TagLib::List<Box> top = boxes(file, 0, file->length());
    const Box *movie = child(top, "moov");
    if (movie == nullptr) return tags;
    for (const Box &track : boxes(file, movie->content, movie->end)) {
        if (track.type != "trak") continue;
        const TagLib::List<Box> trackBoxes = boxes(file, track.content, track.end);
        const Box *user = child(trackBoxes, "udta");
        if (user == nullptr) continue;
        const TagLib::List<Box> userBoxes = boxes(file, user->content, user->end);
        const Box *meta = child(userBoxes, "meta");
        if (meta == nullptr) continue;
        // meta is a full box: version and flags come before its children.
        const TagLib::List<Box> metaBoxes = boxes(file, meta->content + 4, meta->end);
        const Box *list = child(metaBoxes, "ilst");
        if (list == nullptr) continue;
        const TagLib::List<Box> items = boxes(file, list->content, list->end);
        if (items.isEmpty()) continue;
        for (const Box &item : items) {
            const long length = item.end - item.content;
            if (length <= 0 || length > 1024 * 1024) continue;
            file->seek(item.content);
            const TagLib::ByteVector data = firstData(file->readBlock(static_cast<unsigned long>(length)));
            const TagLib::String text(data, TagLib::String::UTF8);
            if (item.type == "\251nam") tags.title = text;
            else if (item.type == "\251ART") tags.artist = text;
            else if (item.type == "\251alb") tags.album = text;
            else if (item.type == "\251gen") tags.genre = text;
            else if (item.type == "\251wrt") tags.composer = text;
            else if (item.type == "\251day") tags.date = text;
            else if (item.type == "trkn") pair(data, tags.track, tags.trackCount);
            else if (item.type == "disk") pair(data, tags.disc, tags.discCount);
        }
        break;
    }
    return tags;
}
