#!/usr/bin/env bash
# README command (a): installs, builds and starts a node on a local mosquitto with a generated demo library.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then bash deploy/install-deps.sh; else sudo bash deploy/install-deps.sh; fi
swift build -c release --product medianode
state=${MEDIANODE_DEMO_DIR:-$PWD/run}
mkdir -p "$state"
[ -d "$state/library" ] || bash deploy/make-demo-library.sh "$state/library"
if ! mosquitto_sub -h 127.0.0.1 -p 1883 -t '$SYS/#' -C 1 -W 2 >/dev/null 2>&1; then
  mosquitto -c deploy/mosquitto.conf -d
  sleep 0.5
fi
node_id=$(hostname)
nohup .build/release/medianode --broker mqtt://127.0.0.1:1883 --node-id "$node_id" \
  --library "$state/library" --database "$state/catalog.sqlite" --audio-sink "wav:$state/output.wav" \
  >"$state/medianode.log" 2>&1 &
echo $! >"$state/medianode.pid"
sleep 1
cat <<MSG
MediaNode is running (pid $(cat "$state/medianode.pid"), log $state/medianode.log).
Watch it:   mosquitto_sub -t 'medianode/#' -v
Browse it:  mosquitto_sub -t 'medianode/$node_id/content/tree/#' -v
Play it:    mosquitto_pub -t medianode/$node_id/cmd/playItem -m '{"indexPath":[0,1,0,0]}'
            (Library > Albums > the first album > its first track; the reply comes on .../result)
Drive it:   mosquitto_pub -t medianode/$node_id/cmd/pause -n
            mosquitto_pub -t medianode/$node_id/cmd/play -n
            mosquitto_pub -t medianode/$node_id/cmd/nextTrack -n
            mosquitto_pub -t medianode/$node_id/cmd/changeRepeatMode -m '{"repeatType":"all"}'
Stop it:    kill \$(cat $state/medianode.pid)
What it plays goes to $state/output.wav (this machine has no sound card); use --audio-sink auto on one that has.
MSG
