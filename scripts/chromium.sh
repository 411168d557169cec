#!/usr/bin/env bash
# Headless Chromium for the report's browser test (tests/report.rs) and its screenshot
# (docs/report.png): Debian's `chromium` package, installed once if it is missing.
# Prints the browser's path.
#
#   scripts/chromium.sh              # -> /usr/bin/chromium
#
# Needs apt-get and root (or sudo) the first time; $CHROMIUM names another browser.
set -euo pipefail
if [ -n "${CHROMIUM:-}" ]; then
    command -v "$CHROMIUM" || { echo "mock-agent: CHROMIUM=$CHROMIUM: no such program" >&2; exit 1; }
    exit 0
fi
found() { command -v chromium || command -v chromium-browser; }
if found >/dev/null; then
    found
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    as_root=()
elif command -v sudo >/dev/null; then
    as_root=(sudo -n)
else
    echo "mock-agent: chromium is not installed, and installing it needs root: run \`apt-get install -y chromium\` as root, or set CHROMIUM to a Chromium binary" >&2
    exit 1
fi
# One installer at a time: concurrent test runs wait for the first one.
exec 9>/tmp/mock-agent-chromium.lock
if command -v flock >/dev/null; then flock 9; fi
if ! found >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq >&2
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2 ||
        { echo "mock-agent: \`apt-get install -y chromium\` failed; see its output above" >&2; exit 1; }
fi
found || { echo "mock-agent: chromium was installed but is not on PATH" >&2; exit 1; }
