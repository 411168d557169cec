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
script="scripts/claude-sdks.sh"
PY_SDK_VERSION="0.2.188"
TS_SDK_VERSION="0.3.331"
PY_SDK="claude-agent-sdk"
PY_IMPORT=""
PIP_FLAGS=""
TS_SDK="@anthropic-ai/claude-agent-sdk"
dir="${MOCK_AGENT_CLAUDE_SDKS:-${CARGO_TARGET_DIR:-$root/target}/claude-sdks}"
requirements="$root/tests/claude/sdk-py/requirements.txt"
package="$root/tests/claude/sdk-ts"
# shellcheck source=scripts/sdk-envs.sh
. "$root/scripts/sdk-envs.sh"
sdk_envs "$@"
