#!/usr/bin/env bash
# The Claude Agent SDKs of the test suite, unmodified, at the pinned versions: the Python
# SDK in a virtual environment of its own, the TypeScript SDK in a node_modules folder.
# Made once and reused (tests/claude_sdks.rs calls this). Prints the paths:
#
#   scripts/claude-sdks.sh        # -> python=.../claude-sdks/py/bin/python
#                                 #    node_modules=.../claude-sdks/ts/node_modules
#   scripts/claude-sdks.sh py     # -> .../claude-sdks/py/bin/python
#   scripts/claude-sdks.sh ts     # -> .../claude-sdks/ts/node_modules
#
# What: tests/claude/sdk-py/requirements.txt (claude-agent-sdk and its dependencies, pinned;
# the SDK built from its source release, without the bundled Claude Code binary) and
# tests/claude/sdk-ts/package.json with its package-lock.json (installed by `npm ci`
# without optional packages: the platform binary of Claude Code is never run).
# Where: $MOCK_AGENT_CLAUDE_SDKS, else claude-sdks in the cargo target directory
# ($CARGO_TARGET_DIR, else target/). Needs python3 with venv, node 18+ and npm, and the
# package registries (PyPI, npm) the first time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PY_SDK_VERSION="0.2.188"
TS_SDK_VERSION="0.3.331"
dir="${MOCK_AGENT_CLAUDE_SDKS:-${CARGO_TARGET_DIR:-$root/target}/claude-sdks}"
python="${PYTHON:-python3}"
requirements="$root/tests/claude/sdk-py/requirements.txt"
package="$root/tests/claude/sdk-ts"
which="${1:-both}"

case "$which" in
py | ts | both) ;;
*)
    echo "mock-agent: scripts/claude-sdks.sh: unknown argument '$which'; give py, ts or nothing" >&2
    exit 2
    ;;
esac

py_ready() {
    [ -x "$dir/py/bin/python" ] &&
        cmp -s "$requirements" "$dir/py/requirements.txt" &&
        [ "$("$dir/py/bin/python" -c 'from importlib.metadata import version; print(version("claude-agent-sdk"))' 2>/dev/null)" = "$PY_SDK_VERSION" ]
}

ts_ready() {
    [ -f "$dir/ts/node_modules/@anthropic-ai/claude-agent-sdk/package.json" ] &&
        cmp -s "$package/package-lock.json" "$dir/ts/package-lock.json" &&
        [ "$(node -p 'require(process.argv[1]).version' "$dir/ts/node_modules/@anthropic-ai/claude-agent-sdk/package.json" 2>/dev/null)" = "$TS_SDK_VERSION" ]
}

make_py() {
    rm -rf "$dir/py"
    "$python" -m venv "$dir/py" >&2
    if ! "$dir/py/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r "$requirements" >&2; then
        echo "mock-agent: scripts/claude-sdks.sh: pip could not install $requirements (claude-agent-sdk $PY_SDK_VERSION); is PyPI reachable? See pip's output above" >&2
        exit 1
    fi
    cp "$requirements" "$dir/py/requirements.txt"
    py_ready || {
        echo "mock-agent: scripts/claude-sdks.sh: $dir/py: claude-agent-sdk $PY_SDK_VERSION did not install; see pip's output above" >&2
        exit 1
    }
}

make_ts() {
    command -v npm >/dev/null || {
        echo "mock-agent: scripts/claude-sdks.sh: npm not found; install node 18+ with npm (apt-get install nodejs npm)" >&2
        exit 1
    }
    rm -rf "$dir/ts"
    mkdir -p "$dir/ts"
    cp "$package/package.json" "$package/package-lock.json" "$dir/ts/"
    if ! (cd "$dir/ts" && npm ci --omit=optional --no-audit --no-fund --loglevel=error >&2); then
        echo "mock-agent: scripts/claude-sdks.sh: npm ci could not install @anthropic-ai/claude-agent-sdk $TS_SDK_VERSION from $package/package-lock.json; is the npm registry reachable? See npm's output above" >&2
        exit 1
    fi
    ts_ready || {
        echo "mock-agent: scripts/claude-sdks.sh: $dir/ts: @anthropic-ai/claude-agent-sdk $TS_SDK_VERSION did not install; see npm's output above" >&2
        exit 1
    }
}

mkdir -p "$dir"
# One maker at a time for each SDK: concurrent test runs wait for the first one's install.
if [ "$which" != ts ]; then
    exec 8>"$dir/py.lock"
    if command -v flock >/dev/null; then flock 8; fi
    py_ready || make_py
fi
if [ "$which" != py ]; then
    exec 9>"$dir/ts.lock"
    if command -v flock >/dev/null; then flock 9; fi
    ts_ready || make_ts
fi

case "$which" in
py) echo "$dir/py/bin/python" ;;
ts) echo "$dir/ts/node_modules" ;;
both)
    echo "python=$dir/py/bin/python"
    echo "node_modules=$dir/ts/node_modules"
    ;;
esac
