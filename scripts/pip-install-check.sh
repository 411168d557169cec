#!/usr/bin/env bash
# The Python package as a user gets it: `pip install .` of this repository into a fresh
# virtual environment (maturin builds the release binary), then the suite's pytest file
# (tests/python) against the installed `mock-agent` command and `mock_agent` plugin,
# loaded by its pytest11 entry point, with nothing from the source tree on the path.
#
#   scripts/pip-install-check.sh
#
# Needs python3 with venv, a Rust toolchain, and PyPI (maturin, pytest). Takes a
# release build's time; cargo's target directory is $CARGO_TARGET_DIR, else target/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PYTEST_VERSION="8.3.5"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

echo "== python -m venv (fresh): $work/venv"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"

echo "== pip install $root"
"$venv_python" -m pip install --disable-pip-version-check --quiet "$root" "pytest==$PYTEST_VERSION"

echo "== installed"
"$venv_python" -m pip show mock-agent | sed -n '1,2p'
ls -l "$work/venv/bin/mock-agent"
# Outside the source tree: the package pip installed, not python/.
cd "$work"
"$venv_python" -c 'import mock_agent, mock_agent.pytest_plugin; print("mock_agent from", mock_agent.__file__); print("mock-agent binary", mock_agent.binary())'
echo "mock-agent cases: $("$work/venv/bin/mock-agent" cases | wc -l) cases in the matrix"

echo "== pytest $root/tests/python (the plugin by its entry point)"
env -u MOCK_AGENT_BIN -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 \
    "$venv_python" -m pytest -p pytester -p no:cacheprovider -q "$root/tests/python"
