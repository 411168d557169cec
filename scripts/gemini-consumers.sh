#!/usr/bin/env bash
# The real headless consumers of Gemini CLI in the test suite, unmodified, at the pinned
# versions: agentabi 0.4.0 (PyPI; its GeminiNativeProvider spawns `gemini -o stream-json
# ... -p PROMPT`), in a virtual environment of its own. Made once and reused. Prints the
# environment's python:
#
#   scripts/gemini-consumers.sh   # -> .../gemini-consumers/bin/python
#
# What: tests/consumers/gemini_requirements.txt (hash-pinned, installed with
# --require-hashes). Where: $MOCK_AGENT_GEMINI_CONSUMERS, else gemini-consumers in the
# cargo target directory ($CARGO_TARGET_DIR, else target/). Needs python3 with venv, and
# PyPI the first time. Exits 75 when PyPI cannot be reached (the tests then skip, saying
# so), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${MOCK_AGENT_GEMINI_CONSUMERS:-${CARGO_TARGET_DIR:-$root/target}/gemini-consumers}"
python="${PYTHON:-python3}"
requirements="$root/tests/consumers/gemini_requirements.txt"
mkdir -p "$(dirname "$dir")"
# One maker at a time, as the other environments of the suite: concurrent test runs
# wait for the first one's install.
exec 9>"$dir.lock"
if command -v flock >/dev/null; then flock 9; fi

ready() {
    [ -x "$dir/bin/python" ] &&
        cmp -s "$requirements" "$dir/requirements.txt" &&
        "$dir/bin/python" -c "import agentabi.providers.gemini_native" 2>/dev/null
}

if ! ready; then
    rm -rf "$dir"
    "$python" -m venv "$dir" >&2
    log="$dir/pip.log"
    if ! "$dir/bin/python" -m pip install --disable-pip-version-check --no-deps \
        --require-hashes -r "$requirements" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$dir/bin/python"
        if grep -qiE "Failed to establish a new connection|Network is unreachable|Temporary failure in name resolution|Max retries exceeded|Could not fetch URL|Connection refused|timed out|from versions: none" "$log"; then
            echo "mock-agent: scripts/gemini-consumers.sh: cannot reach PyPI to install agentabi; see the output above" >&2
            exit 75
        fi
        echo "mock-agent: scripts/gemini-consumers.sh: could not install agentabi; see the output above" >&2
        exit 1
    fi
    cp "$requirements" "$dir/requirements.txt"
fi
echo "$dir/bin/python"
