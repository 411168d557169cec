#!/usr/bin/env bash
# A Python environment of the test suite: a virtual environment with one pinned PyPI
# package, made once and reused. Prints the environment's python.
#
#   scripts/python-env.sh                             # pytest: -> .../python-venv/bin/python
#   scripts/python-env.sh PACKAGE VERSION DIR         # PACKAGE==VERSION in DIR: -> DIR/bin/python
#
# Without arguments, the suite's pytest (tests/pytest.rs calls this), in
# $MOCK_AGENT_PYTHON_VENV, else python-venv in the cargo target directory
# ($CARGO_TARGET_DIR, else target/); scripts/acp-clients.sh names its package. Needs
# python3 with venv, and PyPI (or the index pip is configured with) the first time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
package="${1:-pytest}"
version="${2:-8.3.5}"
venv="${3:-${MOCK_AGENT_PYTHON_VENV:-${CARGO_TARGET_DIR:-$root/target}/python-venv}}"
python="${PYTHON:-python3}"

ready() {
    [ -x "$venv/bin/python" ] &&
        [ "$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$package'))" 2>/dev/null)" = "$version" ]
}

mkdir -p "$(dirname "$venv")"
# One maker at a time: concurrent test runs wait for the first one's environment.
exec 9>"$venv.lock"
if command -v flock >/dev/null; then flock 9; fi
if ! ready; then
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version" >&2
    ready || { echo "mock-agent: $venv: $package $version did not install; see pip's output above" >&2; exit 1; }
fi
echo "$venv/bin/python"
