#include "taglib_reader.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/tag.h>
#include <taglib/tpropertymap.h>

namespace {

// A malloc'd copy of a non-blank string, so Swift frees it with free() like any C string.
char *copy(const TagLib::String &value) {
    if (value.isEmpty()) return nullptr;
    const std::string utf8 = value.to8Bit(true);
    if (utf8.find_first_not_of(" \t\r\n") == std::string::npos) return nullptr;
    return strdup(utf8.c_str());
}

// "2/3" or "2": the number before any slash.
int leadingNumber(const TagLib::PropertyMap &properties, const char *key) {
    const auto found = properties.find(key);
    if (found == properties.end() || found->second.isEmpty()) return 0;
    return std::atoi(found->second.front().to8Bit(true).c_str());
}

}  // namespace

extern "C" int mn_taglib_read(const char *path, MNTagLibTags *tags) {
    std::memset(tags, 0, sizeof *tags);
    try {
        TagLib::FileRef file(path, true, TagLib::AudioProperties::Average);
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
        tags->disc = leadingNumber(file.file()->properties(), "DISCNUMBER");
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
    tags->title = tags->artist = tags->album = tags->genre = nullptr;
}
