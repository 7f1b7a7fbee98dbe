#!/usr/bin/env bash
# Installs Home Assistant from PyPI into its own virtual environment, for the tests that check the node's
# MQTT discovery against Home Assistant's own schemas. Home Assistant 2025.4 needs Python 3.13, which
# Debian 12 does not ship: the script takes $MEDIANODE_PYTHON313, else pyenv's 3.13, else python3.13 on
# the PATH. About 100 s and 600 MB the first time; a second run finds it installed and returns at once.
set -euo pipefail
version=2025.4.4
venv="${MEDIANODE_HOMEASSISTANT_VENV:-/opt/medianode-homeassistant}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import hass_frontend, paho.mqtt, homeassistant.const as c, sys; sys.exit(c.__version__ != '$version')" 2>/dev/null; then
  echo "Home Assistant $version is installed in $venv"
  exit 0
fi
python="${MEDIANODE_PYTHON313:-}"
if [ -z "$python" ]; then
  for candidate in "$HOME"/.pyenv/versions/3.13*/bin/python3 "$(command -v python3.13 || true)"; do
    if [ -n "$candidate" ] && "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != (3, 13))" 2>/dev/null; then
      python="$candidate"; break
    fi
  done
fi
if [ -z "$python" ]; then
  echo "install-homeassistant: no Python 3.13 found (set MEDIANODE_PYTHON313)" >&2
  exit 1
fi
"$python" -m venv "$venv"
# Home Assistant's own pins (package_constraints.txt in its wheel), as its container images install it:
# without them pip backtracks through dozens of Bluetooth library versions for many minutes.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" -m pip download -q --no-deps "homeassistant==$version" -d "$work"
"$venv/bin/python" -c "import glob, sys, zipfile; sys.stdout.write(zipfile.ZipFile(glob.glob('$work/*.whl')[0]).read('homeassistant/package_constraints.txt').decode())" > "$work/constraints.txt"
# The MQTT integration's one requirement (its manifest), which Home Assistant would install at run time, and the
# frontend, without which Home Assistant starts in recovery mode and sets up no MQTT entities.
"$venv/bin/python" -m pip install -q -c "$work/constraints.txt" "homeassistant==$version" "paho-mqtt==2.1.0" home-assistant-frontend
echo "Home Assistant $version installed in $venv"
