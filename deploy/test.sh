#!/usr/bin/env bash
# README command (b): installs what the tests need, builds, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MEDIANODE_DEPS_INSTALLED:-}" ]; then
  if [ "$(id -u)" = 0 ]; then bash deploy/install-deps.sh; else sudo bash deploy/install-deps.sh; fi
fi
swift build --build-tests
swift test --skip-build
