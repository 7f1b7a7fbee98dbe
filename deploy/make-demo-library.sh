#!/usr/bin/env bash
# Writes a small demo library into DIR: two albums of tagged sine tones (a distinct pitch per track) and
# a cover picture each, made with GStreamer's own tools, so nothing binary lives in the repository.
set -euo pipefail
dir=${1:?usage: make-demo-library.sh DIR}
tone() { # file freq seconds title artist album track count
  mkdir -p "$(dirname "$1")"
  gst-launch-1.0 -q audiotestsrc freq="$2" samplesperbuffer=441 num-buffers=$(( $3 * 100 )) volume=0.3 \
    ! audio/x-raw,rate=44100,channels=2 \
    ! taginject "tags=\"title=(string)\\\"$4\\\",artist=(string)\\\"$5\\\",album=(string)\\\"$6\\\",track-number=(uint)$7,track-count=(uint)$8,genre=(string)Demo\"" \
    ! audioconvert ! vorbisenc ! oggmux ! filesink location="$1"
}
cover() { gst-launch-1.0 -q videotestsrc num-buffers=1 pattern="$2" ! video/x-raw,width=600,height=600 \
  ! videoconvert ! jpegenc ! filesink location="$1/cover.jpg"; }
a="$dir/Demo Band/First Light"
b="$dir/Tone Collective/Harmonics"
tone "$a/01 Morning.ogg" 440 20 "Morning" "Demo Band" "First Light" 1 3
tone "$a/02 Noon.ogg" 550 20 "Noon" "Demo Band" "First Light" 2 3
tone "$a/03 Evening.ogg" 660 20 "Evening" "Demo Band" "First Light" 3 3
tone "$b/01 Fundamental.ogg" 220 30 "Fundamental" "Tone Collective" "Harmonics" 1 2
tone "$b/02 Octave.ogg" 880 30 "Octave" "Tone Collective" "Harmonics" 2 2
cover "$a" 0
cover "$b" 18
echo "demo library written to $dir"
