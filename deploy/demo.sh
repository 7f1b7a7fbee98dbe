#!/usr/bin/env bash
# README command (a): installs, builds and starts a node on a local mosquitto with a generated demo library.
set -euo pipefail
cd "$(dirname "$0")/.."
# What a node builds and runs with, not what the tests add (Chromium, Prometheus, NATS...): about 80 MB of
# packages instead of 240 MB.
if [ "$(id -u)" = 0 ]; then bash deploy/install-deps.sh --node; else sudo bash deploy/install-deps.sh --node; fi
# The daemon alone, in the debug configuration: it builds in about half the CPU time of a release build and
# plays the demo as well. MEDIANODE_DEMO_CONFIGURATION=release builds what a vehicle would run.
configuration=${MEDIANODE_DEMO_CONFIGURATION:-debug}
swift build -c "$configuration" --product medianode
state=${MEDIANODE_DEMO_DIR:-$PWD/run}
mkdir -p "$state"
[ -d "$state/library" ] || bash deploy/make-demo-library.sh "$state/library"
answers() { mosquitto_sub -h 127.0.0.1 -p "$1" -t '$SYS/#' -C 1 -W 2 >/dev/null 2>&1; }
# The demo's own broker (deploy/mosquitto.conf: MQTT on 1883, the dashboard and MQTT over WebSockets on
# 9001), started once and reused by later runs. When another broker already has 1883 (Debian's mosquitto
# service starts one on install), the demo's listens on 1884 beside it.
if [ -f "$state/mosquitto.port" ] && answers "$(cat "$state/mosquitto.port")"; then
  port=$(cat "$state/mosquitto.port")
else
  port=1883
  if answers 1883; then port=1884; fi
  sed "s/^listener 1883 /listener $port /" deploy/mosquitto.conf >"$state/mosquitto.conf"
  mosquitto -c "$state/mosquitto.conf" -d
  echo "$port" >"$state/mosquitto.port"
  sleep 0.5
fi
p=""
[ "$port" = 1883 ] || p=" -p $port"
node_id=$(hostname)
# Through the machine's sound server (PulseAudio, or PipeWire's pipewire-pulse: a desktop runs one), as a car's
# node plays; a machine without one (a build machine) gets what it plays in a WAV file instead.
if pactl info >/dev/null 2>&1; then
  sink=pulse
  heard="through the sound server ($(pactl info | sed -n 's/^Server Name: //p'))"
else
  sink="wav:$state/output.wav"
  heard="into $state/output.wav (no sound server answers here)"
fi
nohup ".build/$configuration/medianode" --broker "mqtt://127.0.0.1:$port" --node-id "$node_id" \
  --library "$state/library" --database "$state/catalog.sqlite" --audio-sink "$sink" \
  >"$state/medianode.log" 2>&1 &
echo $! >"$state/medianode.pid"
sleep 1
cat <<MSG
MediaNode is running (pid $(cat "$state/medianode.pid"), log $state/medianode.log).
Dashboard:  http://127.0.0.1:9001/  (open it in a browser: the fleet, then this node; the page talks MQTT
            over WebSockets to the broker that serves it)
            http://127.0.0.1:9001/#node=medianode%2F$node_id  (this node directly)
Watch it:   mosquitto_sub$p -t 'medianode/#' -v
Browse it:  mosquitto_sub$p -t 'medianode/$node_id/content/tree/#' -v
Play it:    mosquitto_pub$p -t medianode/$node_id/cmd/playItem -m '{"indexPath":[0,1,0,0]}'
            (Library > Albums > the first album > its first track; the reply comes on .../result)
Drive it:   mosquitto_pub$p -t medianode/$node_id/cmd/pause -n
            mosquitto_pub$p -t medianode/$node_id/cmd/play -n
            mosquitto_pub$p -t medianode/$node_id/cmd/nextTrack -n
            mosquitto_pub$p -t medianode/$node_id/cmd/changeRepeatMode -m '{"repeatType":"all"}'
Stop it:    kill \$(cat $state/medianode.pid)
It plays $heard.
MSG
