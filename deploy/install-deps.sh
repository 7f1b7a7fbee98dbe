#!/usr/bin/env bash
# Installs the Debian 12 packages MediaNode builds, runs and tests with. Run as root.
set -euo pipefail
packages=(
  pkg-config
  # MQTT: the client library, the broker and its command-line clients
  libmosquitto-dev mosquitto mosquitto-clients
  # The catalog cache
  libsqlite3-dev sqlite3
  # Audio: GStreamer with the base and good plugins (Vorbis, FLAC, MP3, HTTP, WAV, JPEG), and its tools
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-tools
  # AAC in MP4 (.m4a): the decoder to play it, and the encoder the test fixtures are made with
  gstreamer1.0-libav
  # Announcements: text spoken offline by eSpeak NG, through its GStreamer element
  espeak-ng gstreamer1.0-espeak
  # The car's sound server (--audio-sink pulse). Runtime: GStreamer's PulseAudio sink, which speaks to
  # PulseAudio and to PipeWire's pipewire-pulse alike. Tests only: the private sound servers the tests start
  # (PulseAudio; PipeWire with pipewire-pulse and WirePlumber, on a session bus of dbus-daemon's, listed with
  # MPRIS below) and pactl, parec and paplay, which drive and record them.
  gstreamer1.0-pulseaudio
  pulseaudio pulseaudio-utils pipewire pipewire-pulse wireplumber
  # Loudness levelling: EBU R128 integrated loudness of items without ReplayGain tags
  libebur128-dev
  # Tags of local files without decoding them (TagLib's C API)
  libtag1-dev libtagc0-dev
  # Test fixtures: pictures embedded in generated Ogg files
  vorbis-tools
  # Artwork: decode, scale and re-encode cover pictures
  libgdk-pixbuf-2.0-dev
  # GLib's checksums (artwork keys); GStreamer's headers pull it in too
  libglib2.0-dev
  # Catalog and artwork downloads: libcurl's headers, for its write callback's back-pressure and size cap
  libcurl4-openssl-dev curl
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
  # MPRIS on D-Bus: GDBus comes with libglib2.0-dev (gio-2.0) above; the tests start a private bus
  # (dbus-daemon) and drive the node with the real clients, playerctl and GLib's gdbus (libglib2.0-bin)
  dbus-daemon playerctl libglib2.0-bin
  # The browser dashboard: MQTT.js (node-mqtt) and the browser ports of the Node.js modules it uses, bundled
  # for the browser by esbuild (deploy/build-dashboard.sh)
  node-mqtt node-buffer node-process node-url esbuild
  # The dashboard's tests: headless Chromium driven through chromedriver by Selenium
  chromium chromium-driver python3-selenium
)
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
# The dashboard, where deploy/mosquitto.conf's websockets listener serves it from.
bash "$(dirname "$0")/build-dashboard.sh"
