#!/usr/bin/env bash
# Installs the Debian 12 packages MediaNode needs. Run as root.
#   install-deps.sh          everything: what a node builds and runs with, and what the tests add (CI, test.sh)
#   install-deps.sh --node   only what a node builds and runs with, and the dashboard (demo.sh)
set -euo pipefail
# What a node builds and runs with.
node_packages=(
  pkg-config
  # MQTT: the client library, the broker and its command-line clients
  libmosquitto-dev mosquitto mosquitto-clients
  # The catalog cache
  libsqlite3-dev
  # Audio: GStreamer with the base and good plugins (Vorbis, FLAC, MP3, HTTP, WAV, JPEG), and its tools
  # (gst-launch-1.0 makes the demo library)
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-tools
  # AAC in MP4 (.m4a): the decoder to play it, and the encoder the test fixtures are made with
  gstreamer1.0-libav
  # Announcements: text spoken offline by eSpeak NG, through its GStreamer element
  espeak-ng gstreamer1.0-espeak
  # The car's sound server (--audio-sink pulse): GStreamer's PulseAudio sink, which speaks to PulseAudio and to
  # PipeWire's pipewire-pulse alike; pactl, with which the demo asks whether a sound server answers (the tests
  # drive and record their own with it, parec and paplay)
  gstreamer1.0-pulseaudio pulseaudio-utils
  # Loudness levelling: EBU R128 integrated loudness of items without ReplayGain tags
  libebur128-dev
  # Tags of local files without decoding them (TagLib)
  libtag1-dev
  # Artwork: decode, scale and re-encode cover pictures
  libgdk-pixbuf-2.0-dev
  # GLib's checksums (artwork keys) and GDBus (gio-2.0, MPRIS on D-Bus); GStreamer's headers pull it in too
  libglib2.0-dev
  # Catalog and artwork downloads: libcurl's headers, for its write callback's back-pressure and size cap
  libcurl4-openssl-dev
  # The browser dashboard: MQTT.js (node-mqtt) and the browser ports of the Node.js modules it uses, bundled
  # for the browser by esbuild (deploy/build-dashboard.sh)
  node-mqtt node-buffer node-process node-url esbuild
)
# What the tests add.
test_packages=(
  # The private sound servers the tests start: PulseAudio; PipeWire with pipewire-pulse and WirePlumber, on a
  # session bus of dbus-daemon's (listed with MPRIS below)
  pulseaudio pipewire pipewire-pulse wireplumber
  # The integration tests read and damage the catalog file with SQLite's shell
  sqlite3
  # Test fixtures: tags written with TagLib's C API, pictures embedded in generated Ogg files
  libtagc0-dev vorbis-tools
  # The download benchmarks' floor: the same download with curl
  curl
  # The fault-injecting HTTP server of the catalog tests
  python3
  # asyncapi.yaml: the tests check the node's real messages against its JSON Schemas
  python3-yaml python3-jsonschema
  # Fault tests: throwaway TLS certificates for the broker example, immutable files (chattr)
  openssl e2fsprogs
  # Health metrics: a real Prometheus scrapes a node's --metrics-listen in the integration tests
  prometheus
  # A clustered MQTT broker for the fleet rig and the failover test: NATS with JetStream keeps retained
  # messages replicated across members (deploy/cluster/)
  nats-server
  # MPRIS on D-Bus: the tests start a private bus (dbus-daemon) and drive the node with the real clients,
  # playerctl and GLib's gdbus (libglib2.0-bin)
  dbus-daemon playerctl libglib2.0-bin
  # The dashboard's tests: headless Chromium driven through chromedriver by Selenium
  chromium chromium-driver python3-selenium
)
packages=("${node_packages[@]}")
case "${1:-}" in
  --node) ;;
  "") packages+=("${test_packages[@]}") ;;
  *) echo "usage: install-deps.sh [--node]" >&2; exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
# The dashboard, where deploy/mosquitto.conf's websockets listener serves it from.
bash "$(dirname "$0")/build-dashboard.sh"
