#!/usr/bin/env bash
# The real ACP clients of the test suite, pinned, installed once and reused
# (tests/gemini_acp_clients.rs calls this): the Python ACP SDK (PyPI
# `agent-client-protocol`) in a virtual environment, and `acpx` (npm).
#
#   scripts/acp-clients.sh python   # -> .../acp-clients/venv/bin/python
#   scripts/acp-clients.sh acpx     # -> .../acp-clients/node_modules/.bin/acpx
#
# Where: $MOCK_AGENT_ACP_CLIENTS, else acp-clients in the cargo target directory
# ($CARGO_TARGET_DIR, else target/). Needs python3 with venv and PyPI, or node 20+
# and npm, the first time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ACP_SDK_VERSION="0.12.1"
ACPX_VERSION="0.19.1"
dir="${MOCK_AGENT_ACP_CLIENTS:-${CARGO_TARGET_DIR:-$root/target}/acp-clients}"
what="${1:-}"

mkdir -p "$dir"
# One installer at a time: concurrent test runs wait for the first one's.
exec 9>"$dir/.lock"
if command -v flock >/dev/null; then flock 9; fi

case "$what" in
python)
    exec "$root/scripts/python-env.sh" agent-client-protocol "$ACP_SDK_VERSION" "$dir/venv"
    ;;
acpx)
    bin="$dir/node_modules/.bin/acpx"
    ready() {
        [ -x "$bin" ] && [ "$(node -p "require('$dir/node_modules/acpx/package.json').version" 2>/dev/null)" = "$ACPX_VERSION" ]
    }
    if ! ready; then
        (cd "$dir" && [ -f package.json ] || echo '{"private":true}' > "$dir/package.json")
        npm install --silent --no-audit --no-fund --prefix "$dir" "acpx@$ACPX_VERSION" >&2
        ready || { echo "mock-agent: $dir: acpx $ACPX_VERSION did not install; see npm's output above" >&2; exit 1; }
    fi
    echo "$bin"
    ;;
*)
    echo "usage: $0 python|acpx" >&2
    exit 2
    ;;
esac
