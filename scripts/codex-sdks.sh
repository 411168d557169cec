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
script="scripts/codex-sdks.sh"
PY_SDK_VERSION="0.163.0"
TS_SDK_VERSION="0.163.0"
PY_SDK="openai-codex"
PY_IMPORT="import openai_codex"
PIP_FLAGS="--no-deps"
TS_SDK="@openai/codex-sdk"
dir="${MOCK_AGENT_CODEX_SDKS:-${CARGO_TARGET_DIR:-$root/target}/codex-sdks}"
requirements="$root/tests/codex/sdk-py/requirements.txt"
package="$root/tests/codex/sdk-ts"
# shellcheck source=scripts/sdk-envs.sh
. "$root/scripts/sdk-envs.sh"
sdk_envs "$@"
