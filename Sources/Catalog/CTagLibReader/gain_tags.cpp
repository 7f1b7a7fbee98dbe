#include "gain_tags.h"

#include <taglib/flacfile.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mpegfile.h>
#include <taglib/oggfile.h>
#include <taglib/textidentificationframe.h>
#include <taglib/xiphcomment.h>

namespace {

TagLib::String firstXiph(const TagLib::Ogg::FieldListMap &fields, const char *key) {
    const auto found = fields.find(key);
    return found == fields.end() || found->second.isEmpty() ? TagLib::String() : found->second.front();
}

GainTags fromXiph(const TagLib::Ogg::XiphComment *comment) {
    const TagLib::Ogg::FieldListMap &fields = comment->fieldListMap();
    return GainTags{firstXiph(fields, "REPLAYGAIN_TRACK_GAIN"), firstXiph(fields, "REPLAYGAIN_TRACK_PEAK"),
                    firstXiph(fields, "REPLAYGAIN_ALBUM_GAIN"), firstXiph(fields, "REPLAYGAIN_ALBUM_PEAK"),
                    firstXiph(fields, "R128_TRACK_GAIN"), firstXiph(fields, "R128_ALBUM_GAIN")};
}

// ID3v2 keeps ReplayGain in TXXX frames whose description names the value, in any letter case.
GainTags fromID3v2(TagLib::ID3v2::Tag *tag) {
    GainTags gains;
    for (const auto *frame : tag->frameList("TXXX")) {
        const auto *text = dynamic_cast<const TagLib::ID3v2::UserTextIdentificationFrame *>(frame);
        if (text == nullptr || text->fieldList().size() < 2) continue;
        const TagLib::String name = text->description().upper();
        const TagLib::String value = text->fieldList()[1];
        if (name == "REPLAYGAIN_TRACK_GAIN") gains.trackGain = value;
        else if (name == "REPLAYGAIN_TRACK_PEAK") gains.trackPeak = value;
        else if (name == "REPLAYGAIN_ALBUM_GAIN") gains.albumGain = value;
        else if (name == "REPLAYGAIN_ALBUM_PEAK") gains.albumPeak = value;
    }
    return gains;
}

TagLib::String freeform(TagLib::MP4::Tag *tag, const char *name) {
    const TagLib::String key = TagLib::String("----:com.apple.iTunes:") + name;
    if (!tag->contains(key)) return TagLib::String();
    const TagLib::StringList values = tag->item(key).toStringList();
    return values.isEmpty() ? TagLib::String() : values.front();
}

GainTags fromMP4(TagLib::MP4::Tag *tag) {
    return GainTags{freeform(tag, "replaygain_track_gain"), freeform(tag, "replaygain_track_peak"),
                    freeform(tag, "replaygain_album_gain"), freeform(tag, "replaygain_album_peak"),
                    TagLib::String(), TagLib::String()};
}

}  // namespace

GainTags gainTags(TagLib::File *file) {
    if (dynamic_cast<TagLib::Ogg::File *>(file) != nullptr) {
        if (const auto *comment = dynamic_cast<const TagLib::Ogg::XiphComment *>(file->tag())) return fromXiph(comment);
    } else if (auto *flac = dynamic_cast<TagLib::FLAC::File *>(file)) {
        if (flac->hasXiphComment()) return fromXiph(flac->xiphComment());
    } else if (auto *mpeg = dynamic_cast<TagLib::MPEG::File *>(file)) {
        if (mpeg->hasID3v2Tag()) return fromID3v2(mpeg->ID3v2Tag());
    } else if (auto *mp4 = dynamic_cast<TagLib::MP4::File *>(file)) {
        if (mp4->hasMP4Tag()) return fromMP4(mp4->tag());
    }
    return {};
}
