#include "chapters.h"
#include "mp4_boxes.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <taglib/chapterframe.h>
#include <taglib/flacfile.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/oggfile.h>
#include <taglib/tableofcontentsframe.h>
#include <taglib/textidentificationframe.h>
#include <taglib/xiphcomment.h>

namespace {

// More than any real file has; a longer list is cut here, before Swift says so and cuts it further.
constexpr size_t maximumChapters = 4096;

// MARK: - ID3v2 (MP3)

TagLib::String chapterTitle(const TagLib::ID3v2::ChapterFrame *chapter) {
    for (const char *id : {"TIT2", "TIT3"}) {
        const TagLib::ID3v2::FrameList &frames = chapter->embeddedFrameList(id);
        if (!frames.isEmpty()) return frames.front()->toString();
    }
    return TagLib::String();
}

std::vector<RawChapter> fromID3v2(TagLib::ID3v2::Tag *tag) {
    std::vector<const TagLib::ID3v2::ChapterFrame *> chapters;
    for (const TagLib::ID3v2::Frame *frame : tag->frameList("CHAP")) {
        if (const auto *chapter = dynamic_cast<const TagLib::ID3v2::ChapterFrame *>(frame)) chapters.push_back(chapter);
        if (chapters.size() >= maximumChapters) break;
    }
    if (chapters.empty()) return {};
    // The order a top-level table of contents gives, when there is one; chapters it does not name are
    // not part of the book's table (they may belong to a nested one).
    const TagLib::ID3v2::TableOfContentsFrame *table = nullptr;
    for (const TagLib::ID3v2::Frame *frame : tag->frameList("CTOC")) {
        const auto *candidate = dynamic_cast<const TagLib::ID3v2::TableOfContentsFrame *>(frame);
        if (candidate == nullptr) continue;
        if (table == nullptr || candidate->isTopLevel()) table = candidate;
        if (candidate->isTopLevel()) break;
    }
    std::vector<const TagLib::ID3v2::ChapterFrame *> ordered;
    if (table != nullptr && table->isOrdered()) {
        std::map<TagLib::ByteVector, const TagLib::ID3v2::ChapterFrame *> byElement;
        for (const auto *chapter : chapters) byElement.emplace(chapter->elementID(), chapter);
        for (const TagLib::ByteVector &element : table->childElements()) {
            const auto found = byElement.find(element);
            if (found != byElement.end()) ordered.push_back(found->second);
        }
    }
    if (ordered.empty()) {
        // By start, equal starts in file order (std::stable_sort warns with this standard library).
        std::vector<std::pair<unsigned int, size_t>> keys;
        for (size_t index = 0; index < chapters.size(); ++index) keys.emplace_back(chapters[index]->startTime(), index);
        std::sort(keys.begin(), keys.end());
        for (const auto &key : keys) ordered.push_back(chapters[key.second]);
    }
    std::vector<RawChapter> result;
    for (const auto *chapter : ordered) {
        result.push_back(RawChapter{static_cast<long long>(chapter->startTime()), chapterTitle(chapter)});
    }
    return result;
}

// MARK: - Vorbis comments (Ogg Vorbis, Opus, FLAC)

std::vector<RawChapter> fromXiphComment(const TagLib::Ogg::XiphComment *comment) {
    // CHAPTER001=00:00:00.000 and CHAPTER001NAME=...; numbered from 000 or 001, ordered by number.
    std::map<long, RawChapter> byNumber;
    std::map<long, bool> timed;
    // TagLib keeps the field names upper-cased; most are not chapters and are passed over unconverted.
    const TagLib::String prefix("CHAPTER");
    for (const auto &field : comment->fieldListMap()) {
        if (!field.first.startsWith(prefix) || field.second.isEmpty()) continue;
        const std::string key = field.first.to8Bit(true);
        size_t end = 7;
        while (end < key.size() && std::isdigit(static_cast<unsigned char>(key[end]))) ++end;
        if (end == 7 || end - 7 > 6) continue;
        const long number = std::stol(key.substr(7, end - 7));
        const std::string rest = key.substr(end);
        if (rest.empty()) {
            byNumber[number].startMilliseconds = chapterTimeMilliseconds(field.second.front().to8Bit(true));
            timed[number] = true;
        } else if (rest == "NAME") {
            byNumber[number].title = field.second.front();
        }
        if (byNumber.size() > maximumChapters) break;
    }
    std::vector<RawChapter> result;
    for (const auto &entry : byNumber) {
        // A name without a time is no chapter.
        if (timed.count(entry.first) != 0) result.push_back(entry.second);
    }
    return result;
}

// MARK: - MP4: the Nero chapter list, else the QuickTime chapter track

// moov/udta/chpl: version and flags (4), 4 more bytes in version 1, a count (1), then per chapter its start
// in 100 ns units (8) and a title of up to 255 bytes after its length (1).
std::vector<RawChapter> fromNeroList(TagLib::File *file, const TagLib::List<MP4Box> &movie) {
    for (const MP4Box &box : movie) {
        if (box.type != "udta") continue;
        const MP4Box *list = mp4Child(mp4Boxes(file, box.content, box.end), "chpl");
        if (list == nullptr) continue;
        const TagLib::ByteVector data = mp4Content(file, *list, 1 << 20);
        if (data.size() < 5) return {};
        unsigned int offset = data[0] != 0 ? 8 : 4;
        if (offset >= data.size()) return {};
        const unsigned int count = static_cast<unsigned char>(data[offset]);
        offset += 1;
        std::vector<RawChapter> result;
        for (unsigned int index = 0; index < count && offset + 9 <= data.size(); ++index) {
            const unsigned long long start = static_cast<unsigned long long>(data.toLongLong(offset, true));
            const unsigned int length = static_cast<unsigned char>(data[offset + 8]);
            offset += 9;
            if (offset + length > data.size()) break;
            result.push_back(RawChapter{static_cast<long long>(start / 10000),
                                        TagLib::String(data.mid(offset, length), TagLib::String::UTF8)});
            offset += length;
        }
        return result;
    }
    return {};
}

// A QuickTime text sample: its length (2), then UTF-8 text or UTF-16 after a byte order mark.
TagLib::String textSample(const TagLib::ByteVector &sample) {
    if (sample.size() < 2) return TagLib::String();
    const unsigned int length = std::min<unsigned int>(mp4BigEndian(sample, 0, 2), sample.size() - 2);
    const TagLib::ByteVector text = sample.mid(2, length);
    if (text.startsWith(TagLib::ByteVector("\xFE\xFF", 2)) || text.startsWith(TagLib::ByteVector("\xFF\xFE", 2))) {
        return TagLib::String(text, TagLib::String::UTF16);
    }
    return TagLib::String(text, TagLib::String::UTF8);
}

// The track a `trak` box describes: its id (tkhd) and the chapter tracks it names (tref/chap).
struct TrackIDs {
    unsigned int id = 0;
    std::vector<unsigned int> chapterTracks;
};

TrackIDs trackIDs(TagLib::File *file, const TagLib::List<MP4Box> &track) {
    TrackIDs ids;
    if (const MP4Box *header = mp4Child(track, "tkhd")) {
        const TagLib::ByteVector data = mp4Content(file, *header, 4096);
        const unsigned int at = data.size() > 0 && data[0] == 1 ? 20 : 12;
        if (data.size() >= at + 4) ids.id = mp4BigEndian(data, at, 4);
    }
    if (const MP4Box *references = mp4Child(track, "tref")) {
        if (const MP4Box *chapters = mp4Child(mp4Boxes(file, references->content, references->end), "chap")) {
            const TagLib::ByteVector data = mp4Content(file, *chapters, 4096);
            for (unsigned int at = 0; at + 4 <= data.size(); at += 4) ids.chapterTracks.push_back(mp4BigEndian(data, at, 4));
        }
    }
    return ids;
}

// The titles and starts of a chapter track's samples, from its sample tables (mdia/minf/stbl).
std::vector<RawChapter> fromChapterTrack(TagLib::File *file, const TagLib::List<MP4Box> &track) {
    const MP4Box *media = mp4Child(track, "mdia");
    if (media == nullptr) return {};
    const TagLib::List<MP4Box> mediaBoxes = mp4Boxes(file, media->content, media->end);
    const MP4Box *mediaHeader = mp4Child(mediaBoxes, "mdhd");
    const MP4Box *information = mp4Child(mediaBoxes, "minf");
    if (mediaHeader == nullptr || information == nullptr) return {};
    const TagLib::ByteVector header = mp4Content(file, *mediaHeader, 4096);
    const unsigned int scaleAt = header.size() > 0 && header[0] == 1 ? 20 : 12;
    if (header.size() < scaleAt + 4) return {};
    const unsigned int timescale = mp4BigEndian(header, scaleAt, 4);
    const MP4Box *table = mp4Child(mp4Boxes(file, information->content, information->end), "stbl");
    if (timescale == 0 || table == nullptr) return {};
    const TagLib::List<MP4Box> tables = mp4Boxes(file, table->content, table->end);
    const MP4Box *times = mp4Child(tables, "stts");
    const MP4Box *sizes = mp4Child(tables, "stsz");
    const MP4Box *runs = mp4Child(tables, "stsc");
    const MP4Box *offsets32 = mp4Child(tables, "stco");
    const MP4Box *offsets64 = mp4Child(tables, "co64");
    if (times == nullptr || sizes == nullptr || runs == nullptr || (offsets32 == nullptr && offsets64 == nullptr)) return {};
    const long limit = 1 << 20;
    const TagLib::ByteVector stts = mp4Content(file, *times, limit), stsz = mp4Content(file, *sizes, limit);
    const TagLib::ByteVector stsc = mp4Content(file, *runs, limit);
    const TagLib::ByteVector chunks = mp4Content(file, offsets64 != nullptr ? *offsets64 : *offsets32, limit);
    if (stts.size() < 8 || stsz.size() < 12 || stsc.size() < 8 || chunks.size() < 8) return {};

    // Start of each sample, in the track's timescale.
    std::vector<unsigned long long> starts;
    unsigned long long clock = 0;
    const unsigned int timeEntries = mp4BigEndian(stts, 4, 4);
    for (unsigned int entry = 0; entry < timeEntries && 8 + entry * 8 + 8 <= stts.size(); ++entry) {
        const unsigned int count = mp4BigEndian(stts, 8 + entry * 8, 4);
        const unsigned int delta = mp4BigEndian(stts, 12 + entry * 8, 4);
        for (unsigned int sample = 0; sample < count && starts.size() < maximumChapters; ++sample) {
            starts.push_back(clock);
            clock += delta;
        }
    }
    const unsigned int fixedSize = mp4BigEndian(stsz, 4, 4);
    const unsigned int sampleCount = std::min<unsigned int>(mp4BigEndian(stsz, 8, 4), starts.size());
    auto sizeOf = [&](unsigned int sample) -> unsigned int {
        if (fixedSize != 0) return fixedSize;
        return 12 + sample * 4 + 4 <= stsz.size() ? mp4BigEndian(stsz, 12 + sample * 4, 4) : 0;
    };
    const bool wide = offsets64 != nullptr;
    const unsigned int chunkCount = mp4BigEndian(chunks, 4, 4);
    auto chunkOffset = [&](unsigned int chunk) -> long long {
        const unsigned int at = 8 + chunk * (wide ? 8 : 4);
        if (at + (wide ? 8 : 4) > chunks.size()) return -1;
        return wide ? chunks.toLongLong(at, true) : static_cast<long long>(mp4BigEndian(chunks, at, 4));
    };
    const unsigned int runCount = mp4BigEndian(stsc, 4, 4);

    std::vector<RawChapter> result;
    unsigned int sample = 0;
    for (unsigned int run = 0; run < runCount && 8 + run * 12 + 12 <= stsc.size() && sample < sampleCount; ++run) {
        const unsigned int firstChunk = mp4BigEndian(stsc, 8 + run * 12, 4);
        const unsigned int perChunk = mp4BigEndian(stsc, 12 + run * 12, 4);
        const unsigned int nextFirst = run + 1 < runCount && 8 + (run + 1) * 12 + 4 <= stsc.size()
            ? mp4BigEndian(stsc, 8 + (run + 1) * 12, 4) : chunkCount + 1;
        for (unsigned int chunk = firstChunk; chunk < nextFirst && chunk >= 1 && sample < sampleCount; ++chunk) {
            long long offset = chunkOffset(chunk - 1);
            if (offset < 0) return result;
            for (unsigned int index = 0; index < perChunk && sample < sampleCount; ++index, ++sample) {
                const unsigned int size = sizeOf(sample);
                file->seek(static_cast<long>(offset));
                const TagLib::ByteVector bytes = file->readBlock(std::min<unsigned int>(size, 2 + 1024));
                result.push_back(RawChapter{
                    static_cast<long long>(starts[sample] * 1000 / timescale), textSample(bytes)});
                offset += size;
            }
        }
    }
    return result;
}

std::vector<RawChapter> fromMP4(TagLib::File *file) {
    const MP4Box *movie = mp4Child(mp4Boxes(file, 0, file->length()), "moov");
    if (movie == nullptr) return {};
    const TagLib::List<MP4Box> movieBoxes = mp4Boxes(file, movie->content, movie->end);
    std::vector<RawChapter> nero = fromNeroList(file, movieBoxes);
    if (!nero.empty()) return nero;
    // QuickTime chapters: a text track that an audio track names in its tref/chap.
    std::vector<unsigned int> named;
    std::vector<std::pair<unsigned int, TagLib::List<MP4Box>>> tracks;
    for (const MP4Box &box : movieBoxes) {
        if (box.type != "trak") continue;
        TagLib::List<MP4Box> track = mp4Boxes(file, box.content, box.end);
        const TrackIDs ids = trackIDs(file, track);
        named.insert(named.end(), ids.chapterTracks.begin(), ids.chapterTracks.end());
        tracks.emplace_back(ids.id, track);
    }
    for (const auto &track : tracks) {
        if (track.first != 0 && std::find(named.begin(), named.end(), track.first) != named.end()) {
            return fromChapterTrack(file, track.second);
        }
    }
    return {};
}

}  // namespace

long long chapterTimeMilliseconds(const std::string &raw) {
    std::string text = raw;
    const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!text.empty() && blank(text.back())) text.pop_back();
    size_t first = 0;
    while (first < text.size() && blank(text[first])) ++first;
    text = text.substr(first);
    if (text.empty() || text.size() > 32) return -1;
    long long fields[3] = {0, 0, 0};
    int fieldCount = 0;
    size_t at = 0;
    long long milliseconds = 0;
    while (true) {
        size_t start = at;
        long long value = 0;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) value = value * 10 + (text[at++] - '0');
        if (at == start || fieldCount == 3) return -1;
        fields[fieldCount++] = value;
        if (at == text.size()) break;
        if (text[at] == ':') {
            ++at;
            continue;
        }
        if (text[at] != '.') return -1;
        // The fraction: any number of digits, read to the millisecond.
        ++at;
        long long scale = 100;
        size_t digits = 0;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
            milliseconds += (text[at++] - '0') * scale;
            scale /= 10;
            ++digits;
        }
        if (digits == 0 || at != text.size()) return -1;
        break;
    }
    long long seconds = 0;
    for (int index = 0; index < fieldCount; ++index) {
        // Minutes and seconds below 60 after the first field.
        if (index > 0 && fields[index] >= 60) return -1;
        seconds = seconds * 60 + fields[index];
    }
    return seconds * 1000 + milliseconds;
}

std::vector<RawChapter> fileChapters(TagLib::File *file) {
    if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (mpeg->hasID3v2Tag()) return fromID3v2(mpeg->ID3v2Tag());
    } else if (dynamic_cast<TagLib::Ogg::File *>(file) != nullptr) {
        if (auto *comment = dynamic_cast<TagLib::Ogg::XiphComment *>(file->tag())) return fromXiphComment(comment);
    } else if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        if (flac->hasXiphComment()) return fromXiphComment(flac->xiphComment());
    } else if (dynamic_cast<TagLib::MP4::File *>(file) != nullptr) {
        return fromMP4(file);
    }
    return {};
}
