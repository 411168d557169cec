#!/usr/bin/env bash
# The Python environment of the test suite: a virtual environment with a pinned pytest,
# made once and reused (tests/pytest.rs calls this). Prints the environment's python.
#
#   scripts/python-env.sh            # -> .../python-venv/bin/python
#
# Where: $MOCK_AGENT_PYTHON_VENV, else python-venv in the cargo target directory
# ($CARGO_TARGET_DIR, else target/). Needs python3 with venv, and PyPI (or the index
# pip is configured with) the first time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PYTEST_VERSION="8.3.5"
venv="${MOCK_AGENT_PYTHON_VENV:-${CARGO_TARGET_DIR:-$root/target}/python-venv}"
python="${PYTHON:-python3}"

ready() {
    [ -x "$venv/bin/python" ] &&
        [ "$("$venv/bin/python" -c 'import pytest; print(pytest.__version__)' 2>/dev/null)" = "$PYTEST_VERSION" ]
}

mkdir -p "$(dirname "$venv")"
# One maker at a time: concurrent test runs wait for the first one's environment.
exec 9>"$venv.lock"
if command -v flock >/dev/null; then flock 9; fi
if ! ready; then
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytest==$PYTEST_VERSION" >&2
    ready || { echo "mock-agent: $venv: pytest $PYTEST_VERSION did not install; see pip's output above" >&2; exit 1; }
fi
echo "$venv/bin/python"
