# Sourced by scripts/claude-sdks.sh and scripts/codex-sdks.sh, not run: installs an
# agent's SDKs of the test suite, unmodified, at the pinned versions (the Python SDK in
# a virtual environment of its own, the TypeScript SDK in a node_modules folder), once,
# and prints their paths (see either script). The sourcing script sets:
#
#   script        its name, for messages (scripts/codex-sdks.sh)
#   dir           where the environments go
#   requirements  the Python SDK's pinned requirements.txt
#   package       the folder of the TypeScript SDK's package.json and package-lock.json
#   PY_SDK        the Python SDK's distribution (openai-codex); PY_SDK_VERSION its version
#   PY_IMPORT     Python that imports it (may be empty), checked with the version
#   PIP_FLAGS     more flags for pip install (--no-deps), may be empty
#   TS_SDK        the TypeScript SDK's package (@openai/codex-sdk); TS_SDK_VERSION its version
#
# and calls `sdk_envs "$@"`.

sdk_envs() {
    local which="${1:-both}"
    python="${PYTHON:-python3}"
    case "$which" in
    py | ts | both) ;;
    *)
        echo "mock-agent: $script: unknown argument '$which'; give py, ts or nothing" >&2
        exit 2
        ;;
    esac

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
}

py_ready() {
    [ -x "$dir/py/bin/python" ] &&
        cmp -s "$requirements" "$dir/py/requirements.txt" &&
        [ "$("$dir/py/bin/python" -c "from importlib.metadata import version; $PY_IMPORT
print(version('$PY_SDK'))" 2>/dev/null)" = "$PY_SDK_VERSION" ]
}

ts_ready() {
    [ -f "$dir/ts/node_modules/$TS_SDK/package.json" ] &&
        cmp -s "$package/package-lock.json" "$dir/ts/package-lock.json" &&
        [ "$(node -p 'require(process.argv[1]).version' "$dir/ts/node_modules/$TS_SDK/package.json" 2>/dev/null)" = "$TS_SDK_VERSION" ]
}

make_py() {
    rm -rf "$dir/py"
    "$python" -m venv "$dir/py" >&2
    # shellcheck disable=SC2086 # PIP_FLAGS is a list of flags
    if ! "$dir/py/bin/python" -m pip install --quiet --disable-pip-version-check $PIP_FLAGS \
        -r "$requirements" >&2; then
        echo "mock-agent: $script: pip could not install $requirements ($PY_SDK $PY_SDK_VERSION); is PyPI reachable? See pip's output above" >&2
        exit 1
    fi
    cp "$requirements" "$dir/py/requirements.txt"
    py_ready || {
        echo "mock-agent: $script: $dir/py: $PY_SDK $PY_SDK_VERSION did not install; see pip's output above" >&2
        exit 1
    }
}

make_ts() {
    command -v npm >/dev/null || {
        echo "mock-agent: $script: npm not found; install node 18+ with npm (apt-get install nodejs npm)" >&2
        exit 1
    }
    rm -rf "$dir/ts"
    mkdir -p "$dir/ts"
    cp "$package/package.json" "$package/package-lock.json" "$dir/ts/"
    if ! (cd "$dir/ts" && npm ci --omit=optional --no-audit --no-fund --loglevel=error >&2); then
        echo "mock-agent: $script: npm ci could not install $TS_SDK $TS_SDK_VERSION from $package/package-lock.json; is the npm registry reachable? See npm's output above" >&2
        exit 1
    fi
    ts_ready || {
        echo "mock-agent: $script: $dir/ts: $TS_SDK $TS_SDK_VERSION did not install; see npm's output above" >&2
        exit 1
    }
}
