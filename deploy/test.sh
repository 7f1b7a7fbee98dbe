#!/usr/bin/env bash
# README command (b): installs what the tests need, builds, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MEDIANODE_DEPS_INSTALLED:-}" ]; then
  if [ "$(id -u)" = 0 ]; then bash deploy/install-deps.sh; else sudo bash deploy/install-deps.sh; fi
  # Home Assistant, whose own schemas check the node's discovery (a second run returns at once).
  if [ "$(id -u)" = 0 ]; then bash deploy/install-homeassistant.sh; else sudo bash deploy/install-homeassistant.sh; fi
fi
swift build --build-tests
# In parallel, up to 8 tests at a time (about 3 minutes on two cores). Most tests wait on real time (audio
# playing into a WAV file, a broker restarting), so more run at once than there are cores; without a bound
# Swift Testing starts all 535 together. The helpers that start and stop processes await them rather than
# block one of the cooperative pool's two threads. MEDIANODE_TEST_WIDTH changes the bound; 1 runs the
# suite one test at a time, as it ran before.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${MEDIANODE_TEST_WIDTH:-8}" swift test --skip-build \
  --skip EndOfTrackSeekTests --skip SeekDuringSwitchTests --skip RateDuringSwitchTests --skip ShutdownTests --skip SoundServerTests
# Then alone: seeks and rate changes in an item's last second, which a loaded machine can make too late (the item ends
# before the seek reaches playbin, a race the engine does not yet close), so they need the machine to
# themselves to judge the engine and not the load; and the shutdown under a busy loop on every core, which
# would load the tests beside it.
swift test --skip-build --no-parallel --filter "EndOfTrackSeekTests|SeekDuringSwitchTests|RateDuringSwitchTests|ShutdownTests"
# Then alone too, about two minutes: the car's sound server (a private PulseAudio and PipeWire, recorded) times what
# is heard against the node's replies, and the node's real-time audio must not wait for the tests beside it.
swift test --skip-build --no-parallel --filter SoundServerTests
