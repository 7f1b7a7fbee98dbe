#include "taglib_reader.h"
#include "chapters.h"
#include "gain_tags.h"
#include "mp4_track_tags.h"
#include "release_tags.h"

#include <algorithm>
#include <initializer_list>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/tag.h>
#include <taglib/tiostream.h>
#include <taglib/attachedpictureframe.h>
#include <taglib/flacfile.h>
#include <taglib/flacpicture.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4coverart.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/oggfile.h>
#include <taglib/xiphcomment.h>

namespace {

// A read-only TagLib stream that reads through one 64 KiB window with pread: TagLib's own FileStream asks
// the kernel for every small read, seek and length (some 55 calls for a short Ogg file); this needs about
// two, one for the headers and one for the last page, whatever the file's size.
class WindowedFileStream : public TagLib::IOStream {
public:
    explicit WindowedFileStream(const char *path) : path_(path) {
        fd_ = ::open(path, O_RDONLY | O_CLOEXEC);
        struct stat info;
        if (fd_ >= 0 && ::fstat(fd_, &info) == 0) length_ = static_cast<long>(info.st_size);
    }
    ~WindowedFileStream() override {
        if (fd_ >= 0) ::close(fd_);
    }

    TagLib::FileName name() const override { return path_.c_str(); }
    bool readOnly() const override { return true; }
    bool isOpen() const override { return fd_ >= 0; }
    long tell() const override { return position_; }
    long length() override { return length_; }

    void seek(long offset, Position from) override {
        long base = from == Beginning ? 0 : from == Current ? position_ : length_;
        position_ = std::max(0L, base + offset);
    }

    TagLib::ByteVector readBlock(unsigned long count) override {
        if (fd_ < 0 || position_ >= length_ || count == 0) return TagLib::ByteVector();
        const long wanted = std::min<long>(static_cast<long>(count), length_ - position_);
        if (wanted > windowSize) return readDirect(wanted);
        if (position_ < windowStart_ || position_ + wanted > windowStart_ + windowLength_) fill(position_);
        // Short only if the file shrank since it was opened.
        const long available = std::min(wanted, windowStart_ + windowLength_ - position_);
        if (available <= 0) return TagLib::ByteVector();
        TagLib::ByteVector block(window_ + (position_ - windowStart_), static_cast<unsigned int>(available));
        position_ += available;
        return block;
    }

    // Read-only: the scanner never writes tags.
    void writeBlock(const TagLib::ByteVector &) override {}
    void insert(const TagLib::ByteVector &, unsigned long, unsigned long) override {}
    void removeBlock(unsigned long, unsigned long) override {}
    void truncate(long) override {}

private:
    void fill(long start) {
        windowStart_ = start;
        const ssize_t got = ::pread(fd_, window_, windowSize, start);
        windowLength_ = got > 0 ? got : 0;
    }

    TagLib::ByteVector readDirect(long wanted) {
        TagLib::ByteVector block(static_cast<unsigned int>(wanted), 0);
        const ssize_t got = ::pread(fd_, block.data(), static_cast<size_t>(wanted), position_);
        block.resize(got > 0 ? static_cast<unsigned int>(got) : 0);
        position_ += block.size();
        return block;
    }

    std::string path_;
    int fd_ = -1;
    long length_ = 0;
    long position_ = 0;
    long windowStart_ = 0;
    long windowLength_ = 0;
    // One window per scanning thread, not per file (a 64 KiB allocation per file cost more than the reads
    // it saved), made on a thread's first read so threads that never scan carry none.
    static constexpr long windowSize = 64 * 1024;
    static char *window() {
        static thread_local std::unique_ptr<char[]> buffer;
        if (!buffer) buffer.reset(new char[windowSize]);
        return buffer.get();
    }
    char *window_ = window();
};

// A malloc'd copy of a non-blank string, so Swift frees it with free() like any C string.
char *copy(const TagLib::String &value) {
    if (value.isEmpty()) return nullptr;
    const std::string utf8 = value.to8Bit(true);
    if (utf8.find_first_not_of(" \t\r\n") == std::string::npos) return nullptr;
    return strdup(utf8.c_str());
}

// The embedded picture: the front cover when a file has one, else its first picture. Each format keeps
// pictures in its own structure; TagLib has already parsed them while reading the tag, so a file without
// one costs only these lookups.
constexpr unsigned int maximumPictureBytes = 8 * 1024 * 1024;

struct Picture {
    TagLib::ByteVector bytes;
    TagLib::String mimeType;
};

Picture fromFLACPictures(const TagLib::List<TagLib::FLAC::Picture *> &pictures) {
    const TagLib::FLAC::Picture *chosen = nullptr;
    for (const TagLib::FLAC::Picture *picture : pictures) {
        if (picture->type() == TagLib::FLAC::Picture::FrontCover) {
            chosen = picture;
            break;
        }
        if (chosen == nullptr) chosen = picture;
    }
    if (chosen == nullptr) return {};
    return {chosen->data(), chosen->mimeType()};
}

Picture fromID3v2(TagLib::ID3v2::Tag *tag) {
    const TagLib::ID3v2::FrameListMap &frames = tag->frameListMap();
    const auto found = frames.find("APIC");
    if (found == frames.end()) return {};
    const TagLib::ID3v2::AttachedPictureFrame *chosen = nullptr;
    for (const TagLib::ID3v2::Frame *frame : found->second) {
        const auto *picture = dynamic_cast<const TagLib::ID3v2::AttachedPictureFrame *>(frame);
        if (picture == nullptr) continue;
        if (picture->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover) {
            chosen = picture;
            break;
        }
        if (chosen == nullptr) chosen = picture;
    }
    if (chosen == nullptr) return {};
    return {chosen->picture(), chosen->mimeType()};
}

// MP4 cover art has no picture types; its first one is the cover by convention.
Picture fromMP4(TagLib::MP4::Tag *tag) {
    if (!tag->contains("covr")) return {};
    const TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
    if (covers.isEmpty()) return {};
    const TagLib::MP4::CoverArt &cover = covers.front();
    const char *mimeType = cover.format() == TagLib::MP4::CoverArt::PNG ? "image/png" : "image/jpeg";
    return {cover.data(), mimeType};
}

Picture embeddedPicture(TagLib::File *file) {
    if (dynamic_cast<TagLib::Ogg::File *>(file) != nullptr) {
        if (auto *comment = dynamic_cast<TagLib::Ogg::XiphComment *>(file->tag())) {
            return fromFLACPictures(comment->pictureList());
        }
    } else if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        // Pictures are metadata blocks of their own; some taggers put them in the Vorbis comment instead.
        Picture picture = fromFLACPictures(flac->pictureList());
        if (picture.bytes.isEmpty() && flac->hasXiphComment()) {
            picture = fromFLACPictures(flac->xiphComment()->pictureList());
        }
        return picture;
    } else if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (mpeg->hasID3v2Tag()) return fromID3v2(mpeg->ID3v2Tag());
    } else if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (mp4->hasMP4Tag()) return fromMP4(mp4->tag());
    }
    return {};
}

// Copies a picture out for Swift (malloc'd, freed with the tags); a picture over the cap is left out.
void storePicture(const Picture &picture, MNTagLibTags *tags) {
    if (picture.bytes.isEmpty() || picture.bytes.size() > maximumPictureBytes) return;
    auto *bytes = static_cast<unsigned char *>(std::malloc(picture.bytes.size()));
    if (bytes == nullptr) return;
    std::memcpy(bytes, picture.bytes.data(), picture.bytes.size());
    tags->picture = bytes;
    tags->pictureSize = static_cast<int>(picture.bytes.size());
    tags->pictureMimeType = copy(picture.mimeType);
}

// Copies the chapters out for Swift (malloc'd, freed with the tags).
void storeChapters(const std::vector<RawChapter> &chapters, MNTagLibTags *tags) {
    if (chapters.empty()) return;
    auto *list = static_cast<MNChapter *>(std::calloc(chapters.size(), sizeof(MNChapter)));
    if (list == nullptr) return;
    for (size_t index = 0; index < chapters.size(); ++index) {
        list[index].startMilliseconds = chapters[index].startMilliseconds;
        list[index].title = copy(chapters[index].title);
    }
    tags->chapters = list;
    tags->chapterCount = static_cast<int>(chapters.size());
}

// Fills what the movie-level tag left out from the track's own items.
void fillFromTrack(const MP4TrackTags &track, MNTagLibTags *tags) {
    if (tags->title == nullptr) tags->title = copy(track.title);
    if (tags->artist == nullptr) tags->artist = copy(track.artist);
    if (tags->album == nullptr) tags->album = copy(track.album);
    if (tags->genre == nullptr) tags->genre = copy(track.genre);
    if (tags->composer == nullptr) tags->composer = copy(track.composer);
    if (tags->year <= 0) tags->year = leadingNumber(track.date);
    if (tags->track <= 0) tags->track = track.track;
    if (tags->trackCount <= 0) tags->trackCount = track.trackCount;
    if (tags->disc <= 0) tags->disc = track.disc;
    if (tags->discCount <= 0) tags->discCount = track.discCount;
}

}  // namespace

extern "C" int mn_taglib_read(const char *path, MNTagLibTags *tags) {
    std::memset(tags, 0, sizeof *tags);
    try {
        // The stream outlives the FileRef that reads from it (declared first, destroyed last).
        auto stream = std::make_unique<WindowedFileStream>(path);
        if (!stream->isOpen()) return 0;
        TagLib::FileRef file(stream.get(), true, TagLib::AudioProperties::Average);
        if (file.isNull() || !file.file()->isValid()) return 0;
        const TagLib::AudioProperties *properties = file.audioProperties();
        // TagLib's MPEG reader accepts almost any bytes; real audio has a sample rate.
        if (properties == nullptr || properties->sampleRate() <= 0) return 0;
        tags->sampleRate = properties->sampleRate();
        tags->lengthMilliseconds = properties->lengthInMilliseconds();
        if (const TagLib::Tag *tag = file.tag()) {
            tags->title = copy(tag->title());
            tags->artist = copy(tag->artist());
            tags->album = copy(tag->album());
            tags->genre = copy(tag->genre());
            tags->year = static_cast<int>(tag->year());
            tags->track = static_cast<int>(tag->track());
        }
        const Extras more = extras(file.file());
        tags->composer = copy(more.composer);
        tags->disc = more.disc;
        tags->discCount = more.discCount;
        tags->trackCount = more.trackCount;
        auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file.file());
        if (mp4 != nullptr && (file.tag() == nullptr || file.tag()->isEmpty())) fillFromTrack(mp4TrackTags(mp4), tags);
        const GainTags gains = gainTags(file.file());
        tags->replayGainTrackGain = copy(gains.trackGain);
        tags->replayGainTrackPeak = copy(gains.trackPeak);
        tags->replayGainAlbumGain = copy(gains.albumGain);
        tags->replayGainAlbumPeak = copy(gains.albumPeak);
        tags->r128TrackGain = copy(gains.r128TrackGain);
        tags->r128AlbumGain = copy(gains.r128AlbumGain);
        storePicture(embeddedPicture(file.file()), tags);
        storeChapters(fileChapters(file.file()), tags);
        return 1;
    } catch (const std::bad_alloc &) {
        mn_taglib_tags_free(tags);
        return 0;
    }
}

extern "C" void mn_taglib_tags_free(MNTagLibTags *tags) {
    std::free(tags->title);
    std::free(tags->artist);
    std::free(tags->album);
    std::free(tags->genre);
    std::free(tags->composer);
    std::free(tags->picture);
    std::free(tags->pictureMimeType);
    for (char **gain : {&tags->replayGainTrackGain, &tags->replayGainTrackPeak, &tags->replayGainAlbumGain,
                        &tags->replayGainAlbumPeak, &tags->r128TrackGain, &tags->r128AlbumGain}) {
        std::free(*gain);
        *gain = nullptr;
    }
    for (int index = 0; index < tags->chapterCount; ++index) std::free(tags->chapters[index].title);
    std::free(tags->chapters);
    tags->chapters = nullptr;
    tags->chapterCount = 0;
    tags->title = tags->artist = tags->album = tags->genre = tags->composer = tags->pictureMimeType = nullptr;
    tags->picture = nullptr;
    tags->pictureSize = 0;
}
