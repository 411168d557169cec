#!/usr/bin/env bash
# The Codex SDKs of the test suite, unmodified, at the pinned versions: the Python SDK
# (openai-codex, which drives `codex app-server`) in a virtual environment of its own,
# the TypeScript SDK (@openai/codex-sdk, which runs `codex exec --experimental-json`) in
# a node_modules folder. Made once and reused. Prints the paths:
#
#   scripts/codex-sdks.sh        # -> python=.../codex-sdks/py/bin/python
#                                #    node_modules=.../codex-sdks/ts/node_modules
#   scripts/codex-sdks.sh py     # -> .../codex-sdks/py/bin/python
#   scripts/codex-sdks.sh ts     # -> .../codex-sdks/ts/node_modules
#
# What: tests/codex/sdk-py/requirements.txt (openai-codex and its dependencies, pinned,
# installed with --no-deps: without openai-codex-cli-bin, the real `codex` binary, which
# the tests never run; they set CodexConfig.codex_bin) and tests/codex/sdk-ts/package.json
# with its package-lock.json (installed by `npm ci` without optional packages: the
# platform binary of @openai/codex is never run; the tests set codexPathOverride).
# Where: $MOCK_AGENT_CODEX_SDKS, else codex-sdks in the cargo target directory
# ($CARGO_TARGET_DIR, else target/). Needs python3 with venv, node 18+ and npm, and the
# package registries (PyPI, npm) the first time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PY_SDK_VERSION="0.163.0"
TS_SDK_VERSION="0.163.0"
dir="${MOCK_AGENT_CODEX_SDKS:-${CARGO_TARGET_DIR:-$root/target}/codex-sdks}"
python="${PYTHON:-python3}"
requirements="$root/tests/codex/sdk-py/requirements.txt"
package="$root/tests/codex/sdk-ts"
which="${1:-both}"

case "$which" in
py | ts | both) ;;
*)
    echo "mock-agent: scripts/codex-sdks.sh: unknown argument '$which'; give py, ts or nothing" >&2
    exit 2
    ;;
esac

py_ready() {
    [ -x "$dir/py/bin/python" ] &&
        cmp -s "$requirements" "$dir/py/requirements.txt" &&
        [ "$("$dir/py/bin/python" -c 'from importlib.metadata import version; import openai_codex; print(version("openai-codex"))' 2>/dev/null)" = "$PY_SDK_VERSION" ]
}

ts_ready() {
    [ -f "$dir/ts/node_modules/@openai/codex-sdk/package.json" ] &&
        cmp -s "$package/package-lock.json" "$dir/ts/package-lock.json" &&
        [ "$(node -p 'require(process.argv[1]).version' "$dir/ts/node_modules/@openai/codex-sdk/package.json" 2>/dev/null)" = "$TS_SDK_VERSION" ]
}

make_py() {
    rm -rf "$dir/py"
    "$python" -m venv "$dir/py" >&2
    if ! "$dir/py/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        -r "$requirements" >&2; then
        echo "mock-agent: scripts/codex-sdks.sh: pip could not install $requirements (openai-codex $PY_SDK_VERSION); is PyPI reachable? See pip's output above" >&2
        exit 1
    fi
    cp "$requirements" "$dir/py/requirements.txt"
    py_ready || {
        echo "mock-agent: scripts/codex-sdks.sh: $dir/py: openai-codex $PY_SDK_VERSION did not install; see pip's output above" >&2
        exit 1
    }
}

make_ts() {
    command -v npm >/dev/null || {
        echo "mock-agent: scripts/codex-sdks.sh: npm not found; install node 18+ with npm (apt-get install nodejs npm)" >&2
        exit 1
    }
    rm -rf "$dir/ts"
    mkdir -p "$dir/ts"
    cp "$package/package.json" "$package/package-lock.json" "$dir/ts/"
    if ! (cd "$dir/ts" && npm ci --omit=optional --no-audit --no-fund --loglevel=error >&2); then
        echo "mock-agent: scripts/codex-sdks.sh: npm ci could not install @openai/codex-sdk $TS_SDK_VERSION from $package/package-lock.json; is the npm registry reachable? See npm's output above" >&2
        exit 1
    fi
    ts_ready || {
        echo "mock-agent: scripts/codex-sdks.sh: $dir/ts: @openai/codex-sdk $TS_SDK_VERSION did not install; see npm's output above" >&2
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
