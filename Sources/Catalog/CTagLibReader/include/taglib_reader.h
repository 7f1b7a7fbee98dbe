#ifndef MEDIANODE_TAGLIB_READER_H
#define MEDIANODE_TAGLIB_READER_H
// A C interface to TagLib's C++ API for the library scanner. TagLib's own C API keeps global flags and a
// global list of returned strings, which forces one file at a time; this keeps no state between calls.

#ifdef __cplusplus
extern "C" {
#endif

/// One chapter as the file gives it; `startMilliseconds` is -1 when its start cannot be read.
typedef struct MNChapter {
    long long startMilliseconds;
    char *title;
} MNChapter;

/// What one file's headers say. Strings are malloc'd UTF-8 (free with mn_taglib_tags_free), NULL if absent.
typedef struct MNTagLibTags {
    char *title;
    char *artist;
    char *album;
    char *genre;
    char *composer;
    int year;
    int track;
    /// How many tracks and discs the release has; 0 when the tag does not say.
    int trackCount;
    int disc;
    int discCount;
    int lengthMilliseconds;
    int sampleRate;
    /// The embedded front cover (else the first picture), malloc'd; NULL when the file has none or it is
    /// larger than 8 MiB.
    unsigned char *picture;
    int pictureSize;
    /// The MIME type the file declares for the picture (UTF-8, malloc'd), NULL if none.
    char *pictureMimeType;
    /// Loudness tags as written (UTF-8, malloc'd), NULL if absent: REPLAYGAIN_TRACK_GAIN, _TRACK_PEAK,
    /// _ALBUM_GAIN, _ALBUM_PEAK, and Opus's R128_TRACK_GAIN and R128_ALBUM_GAIN.
    char *replayGainTrackGain;
    char *replayGainTrackPeak;
    char *replayGainAlbumGain;
    char *replayGainAlbumPeak;
    char *r128TrackGain;
    char *r128AlbumGain;
    /// The file's chapters in its own order (ID3v2 CHAP/CTOC, Vorbis comment CHAPTERnnn, MP4 chapter lists),
    /// malloc'd; NULL and 0 when it has none. Titles may be NULL.
    MNChapter *chapters;
    int chapterCount;
} MNTagLibTags;

/// Reads the tags, stream length and embedded picture of the file at `path` without decoding audio; returns 1 when TagLib
/// recognised the file and found an audio stream, else 0 (and `tags` holds nothing to free).
/// Safe to call from several threads at once for different files.
int mn_taglib_read(const char *path, MNTagLibTags *tags);

/// Frees the strings of a successful mn_taglib_read.
void mn_taglib_tags_free(MNTagLibTags *tags);

#ifdef __cplusplus
}
#endif
#endif
