#!/usr/bin/env bash
# The real agent CLIs, unmodified, at the pinned versions, for running against the
# scripted model APIs (`mock-agent model-api`; tests/model_api.rs calls this). Made once
# and reused. Prints the executables:
#
#   scripts/real-clis.sh           # -> claude=.../real-clis/claude/claude
#                                  #    codex=.../real-clis/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
#                                  #    gemini=.../real-clis/gemini/node_modules/.bin/gemini
#   scripts/real-clis.sh claude    # -> .../real-clis/claude/claude   (codex, gemini: the same)
#
# What: Claude Code 2.1.331, the binary the PyPI wheel of claude-agent-sdk 0.2.188 bundles
# (tests/real/claude/requirements.txt, hash-pinned; only the binary is kept); Codex 0.163.0,
# npm @openai/codex with its platform package (tests/real/codex/package-lock.json, `npm ci`
# with optional packages); Gemini CLI 0.61.0, npm @google/gemini-cli
# (tests/real/gemini/package-lock.json). Linux x86_64 only.
# Where: $MOCK_AGENT_REAL_CLIS, else real-clis in the cargo target directory
# ($CARGO_TARGET_DIR, else target/). Needs python3 with pip, node 20+ and npm, and the
# package registries (PyPI, npm) the first time. Exits 75 when a registry cannot be
# reached (the tests then skip, saying so), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CLAUDE_VERSION="2.1.331"
CODEX_VERSION="0.163.0"
GEMINI_VERSION="0.61.0"
dir="${MOCK_AGENT_REAL_CLIS:-${CARGO_TARGET_DIR:-$root/target}/real-clis}"
python="${PYTHON:-python3}"
locks="$root/tests/real"
which="${1:-all}"
codex_bin="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
gemini_bin="node_modules/.bin/gemini"

case "$which" in
claude | codex | gemini | all) ;;
*)
    echo "mock-agent: scripts/real-clis.sh: unknown argument '$which'; give claude, codex, gemini or nothing" >&2
    exit 2
    ;;
esac

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
    echo "mock-agent: scripts/real-clis.sh: the pinned CLIs are installed for Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2
    exit 1
fi

# Says why the install failed: exit 75 when the registry is out of reach, else 1.
fail() {
    local what="$1" unreachable="$2"
    if [ "$unreachable" = yes ]; then
        echo "mock-agent: scripts/real-clis.sh: cannot reach the package registry to install $what; see the output above" >&2
        exit 75
    fi
    echo "mock-agent: scripts/real-clis.sh: could not install $what; see the output above" >&2
    exit 1
}

claude_ready() {
    [ -x "$dir/claude/claude" ] &&
        cmp -s "$locks/claude/requirements.txt" "$dir/claude/requirements.txt" &&
        [ "$(HOME="$dir/claude" "$dir/claude/claude" -v 2>/dev/null)" = "$CLAUDE_VERSION (Claude Code)" ]
}

make_claude() {
    rm -rf "$dir/claude"
    mkdir -p "$dir/claude/wheel"
    local log="$dir/claude/pip.log"
    if ! "$python" -m pip download --disable-pip-version-check --no-deps \
        --only-binary=:all: --require-hashes -r "$locks/claude/requirements.txt" \
        -d "$dir/claude/wheel" >"$log" 2>&1; then
        cat "$log" >&2
        if grep -qiE "Failed to establish a new connection|Network is unreachable|Temporary failure in name resolution|Max retries exceeded|Could not fetch URL|Connection refused|timed out|from versions: none" "$log"; then
            fail "claude-agent-sdk's wheel (Claude Code $CLAUDE_VERSION)" yes
        fi
        fail "claude-agent-sdk's wheel (Claude Code $CLAUDE_VERSION)" no
    fi
    "$python" - "$dir/claude" <<'EOF'
import glob, os, shutil, sys, zipfile
out = sys.argv[1]
(wheel,) = glob.glob(os.path.join(out, "wheel", "*.whl"))
with zipfile.ZipFile(wheel) as z, z.open("claude_agent_sdk/_bundled/claude") as src:
    with open(os.path.join(out, "claude"), "wb") as dst:
        shutil.copyfileobj(src, dst)
os.chmod(os.path.join(out, "claude"), 0o755)
EOF
    rm -rf "$dir/claude/wheel"
    cp "$locks/claude/requirements.txt" "$dir/claude/requirements.txt"
    claude_ready || fail "Claude Code $CLAUDE_VERSION (the binary does not report its version)" no
}

npm_ready() {
    local name="$1" package="$2" version="$3"
    [ -f "$dir/$name/node_modules/$package/package.json" ] &&
        cmp -s "$locks/$name/package-lock.json" "$dir/$name/package-lock.json" &&
        [ "$(node -p 'require(process.argv[1]).version' "$dir/$name/node_modules/$package/package.json" 2>/dev/null)" = "$version" ]
}

make_npm() {
    local name="$1" package="$2" version="$3"
    command -v npm >/dev/null || {
        echo "mock-agent: scripts/real-clis.sh: npm not found; install node 20+ with npm (apt-get install nodejs npm)" >&2
        exit 1
    }
    rm -rf "${dir:?}/$name"
    mkdir -p "$dir/$name"
    cp "$locks/$name/package.json" "$locks/$name/package-lock.json" "$dir/$name/"
    if ! (cd "$dir/$name" && npm ci --no-audit --no-fund --loglevel=error >&2); then
        if ! npm ping >/dev/null 2>&1; then
            fail "$package $version" yes
        fi
        fail "$package $version from $locks/$name/package-lock.json" no
    fi
    npm_ready "$name" "$package" "$version" || fail "$package $version" no
}

mkdir -p "$dir"
# One maker at a time for each CLI: concurrent test runs wait for the first one's install.
for cli in claude codex gemini; do
    if [ "$which" != all ] && [ "$which" != "$cli" ]; then
        continue
    fi
    exec 9>"$dir/$cli.lock"
    if command -v flock >/dev/null; then flock 9; fi
    case "$cli" in
    claude) claude_ready || make_claude ;;
    codex)
        npm_ready codex @openai/codex "$CODEX_VERSION" || make_npm codex @openai/codex "$CODEX_VERSION"
        [ -x "$dir/codex/$codex_bin" ] || fail "Codex's platform package (@openai/codex-linux-x64)" no
        ;;
    gemini) npm_ready gemini @google/gemini-cli "$GEMINI_VERSION" || make_npm gemini @google/gemini-cli "$GEMINI_VERSION" ;;
    esac
    exec 9>&-
done

case "$which" in
claude) echo "$dir/claude/claude" ;;
codex) echo "$dir/codex/$codex_bin" ;;
gemini) echo "$dir/gemini/$gemini_bin" ;;
all)
    echo "claude=$dir/claude/claude"
    echo "codex=$dir/codex/$codex_bin"
    echo "gemini=$dir/gemini/$gemini_bin"
    ;;
esac
