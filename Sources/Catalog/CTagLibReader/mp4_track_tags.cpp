#include "mp4_track_tags.h"

#include "mp4_boxes.h"

#include <taglib/tbytevector.h>

namespace {

// The payload of an item's first `data` box: size (4), "data", type and flags (4), locale (4), payload.
TagLib::ByteVector firstData(const TagLib::ByteVector &item) {
    if (item.size() < 16 || item.mid(4, 4) != "data") return TagLib::ByteVector();
    const unsigned int size = mp4BigEndian(item, 0, 4);
    if (size < 16 || size > item.size()) return TagLib::ByteVector();
    return item.mid(16, size - 16);
}

// trkn and disk: two reserved bytes, the number, the count.
void pair(const TagLib::ByteVector &data, int &number, int &count) {
    if (data.size() < 6) return;
    number = static_cast<int>(mp4BigEndian(data, 2, 2));
    count = static_cast<int>(mp4BigEndian(data, 4, 2));
}

}  // namespace

MP4TrackTags mp4TrackTags(TagLib::MP4::File *file) {
    MP4TrackTags tags;
    const TagLib::List<MP4Box> top = mp4Boxes(file, 0, file->length());
    const MP4Box *movie = mp4Child(top, "moov");
    if (movie == nullptr) return tags;
    for (const MP4Box &track : mp4Boxes(file, movie->content, movie->end)) {
        if (track.type != "trak") continue;
        const TagLib::List<MP4Box> trackBoxes = mp4Boxes(file, track.content, track.end);
        const MP4Box *user = mp4Child(trackBoxes, "udta");
        if (user == nullptr) continue;
        const TagLib::List<MP4Box> userBoxes = mp4Boxes(file, user->content, user->end);
        const MP4Box *meta = mp4Child(userBoxes, "meta");
        if (meta == nullptr) continue;
        // meta is a full box: version and flags come before its children.
        const TagLib::List<MP4Box> metaBoxes = mp4Boxes(file, meta->content + 4, meta->end);
        const MP4Box *list = mp4Child(metaBoxes, "ilst");
        if (list == nullptr) continue;
        const TagLib::List<MP4Box> items = mp4Boxes(file, list->content, list->end);
        if (items.isEmpty()) continue;
        for (const MP4Box &item : items) {
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
