#!/usr/bin/env bash
# Installs the browser dashboard into DIR (default /usr/local/share/medianode/dashboard, where
# deploy/mosquitto.conf's http_dir points): deploy/dashboard's files, and MQTT.js from Debian's node-mqtt
# bundled for the browser with Debian's esbuild (install-deps.sh installs both; npm is not needed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-/usr/local/share/medianode/dashboard}
mqtt_entry=/usr/share/nodejs/mqtt/lib/connect/index.js
command -v esbuild >/dev/null && [ -f "$mqtt_entry" ] || {
  echo "build-dashboard: needs Debian's esbuild and node-mqtt (bash deploy/install-deps.sh)" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# MQTT.js is written for Node.js: the browser gets Buffer and process from Debian's browser ports of them
# (node-buffer, node-process), and WebSocket instead of the `ws` package, which MQTT.js does not call there.
cat >"$work/globals.js" <<'JS'
export { Buffer } from 'buffer'
export { default as process } from 'process/browser.js'
JS
echo "module.exports = function () { throw new Error('the browser uses its own WebSocket') }" >"$work/no-ws.js"
mkdir -p "$dest"
(cd "$work" && NODE_PATH=/usr/share/nodejs esbuild "$mqtt_entry" --bundle --minify --log-level=warning \
  --platform=browser --format=iife --global-name=mqtt --inject:./globals.js --define:global=globalThis \
  --alias:ws=./no-ws.js --outfile="$work/mqtt.min.js")
cp "$here"/dashboard/*.html "$here"/dashboard/*.js "$work/mqtt.min.js" "$dest/"
chmod 0755 "$dest"
chmod 0644 "$dest"/*
echo "dashboard installed in $dest"
