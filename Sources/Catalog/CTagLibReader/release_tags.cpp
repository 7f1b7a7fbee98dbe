#include "release_tags.h"

#include <cstdlib>
#include <taglib/flacfile.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/oggfile.h>
#include <taglib/xiphcomment.h>

int leadingNumber(const TagLib::String &value) { return std::atoi(value.toCString(true)); }

namespace {

// "2/3": the number after the slash, 0 without one.
int numberAfterSlash(const TagLib::String &value) {
    const int slash = value.find("/");
    return slash < 0 ? 0 : std::atoi(value.substr(static_cast<unsigned int>(slash) + 1).toCString(true));
}

const TagLib::String *firstXiph(const TagLib::Ogg::FieldListMap &fields, const char *key) {
    const auto found = fields.find(key);
    return found == fields.end() || found->second.isEmpty() ? nullptr : &found->second.front();
}

// Vorbis comments: DISCNUMBER may be "1/2"; the totals have two spellings in the wild (DISCTOTAL is
// what GStreamer and most taggers write, TOTALDISCS what some rippers do).
Extras fromXiph(const TagLib::Ogg::XiphComment *comment) {
    Extras extras;
    const TagLib::Ogg::FieldListMap &fields = comment->fieldListMap();
    if (const auto *value = firstXiph(fields, "COMPOSER")) extras.composer = *value;
    if (const auto *value = firstXiph(fields, "DISCNUMBER")) {
        extras.disc = leadingNumber(*value);
        extras.discCount = numberAfterSlash(*value);
    }
    for (const char *key : {"DISCTOTAL", "TOTALDISCS"}) {
        if (const auto *value = firstXiph(fields, key)) extras.discCount = leadingNumber(*value);
    }
    if (const auto *value = firstXiph(fields, "TRACKNUMBER")) extras.trackCount = numberAfterSlash(*value);
    for (const char *key : {"TRACKTOTAL", "TOTALTRACKS"}) {
        if (const auto *value = firstXiph(fields, key)) extras.trackCount = leadingNumber(*value);
    }
    return extras;
}

const TagLib::ID3v2::Frame *firstFrame(const TagLib::ID3v2::FrameListMap &frames, const char *id) {
    const auto found = frames.find(id);
    return found == frames.end() || found->second.isEmpty() ? nullptr : found->second.front();
}

// ID3v2: TCOM, and TPOS and TRCK as "n/m".
Extras extrasFromID3v2(TagLib::ID3v2::Tag *tag) {
    Extras extras;
    const TagLib::ID3v2::FrameListMap &frames = tag->frameListMap();
    if (const auto *frame = firstFrame(frames, "TCOM")) extras.composer = frame->toString();
    if (const auto *frame = firstFrame(frames, "TPOS")) {
        extras.disc = leadingNumber(frame->toString());
        extras.discCount = numberAfterSlash(frame->toString());
    }
    if (const auto *frame = firstFrame(frames, "TRCK")) extras.trackCount = numberAfterSlash(frame->toString());
    return extras;
}

// MP4: ©wrt, and the disk and trkn pairs (number, count).
Extras extrasFromMP4(TagLib::MP4::Tag *tag) {
    Extras extras;
    if (tag->contains("\251wrt")) {
        const TagLib::StringList values = tag->item("\251wrt").toStringList();
        if (!values.isEmpty()) extras.composer = values.front();
    }
    if (tag->contains("disk")) {
        const auto pair = tag->item("disk").toIntPair();
        extras.disc = pair.first;
        extras.discCount = pair.second;
    }
    if (tag->contains("trkn")) extras.trackCount = tag->item("trkn").toIntPair().second;
    return extras;
}

}  // namespace

Extras extras(TagLib::File *file) {
    if (dynamic_cast<TagLib::Ogg::File *>(file) != nullptr) {
        if (const auto *comment = dynamic_cast<const TagLib::Ogg::XiphComment *>(file->tag())) {
            return fromXiph(comment);
        }
    } else if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        if (flac->hasXiphComment()) return fromXiph(flac->xiphComment());
    } else if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (mpeg->hasID3v2Tag()) return extrasFromID3v2(mpeg->ID3v2Tag());
    } else if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (mp4->hasMP4Tag()) return extrasFromMP4(mp4->tag());
    }
    return {};
}
