#!/usr/bin/env bash
# The example project of tests/npm.rs, installed as a user installs mock-agent: the
# tarballs of scripts/npm-pack.sh (of the binary given, the one under test) installed by
# `npm install ./mock-agent-*.tgz` (@mock-agent/mock-agent and @mock-agent/linux-x64) into a project of its own, beside the pinned vitest,
# SDKs and TypeScript of tests/npm/project/package.json (installed once and kept while
# that file stays the same; the npm registry the first time). Also a copy of the project
# with the bugs of tests/npm/planted/*.patch planted (sharing its node_modules).
#
#   tests/npm/install.sh BINARY DIR    # prints DIR/project and DIR/planted
#
# One install at a time (flock): a concurrent caller waits, then finds it done.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
[ $# -eq 2 ] || {
    echo "mock-agent: tests/npm/install.sh: give the binary to pack and the folder to install in" >&2
    exit 64
}
bin="$1"
dir="$2"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
source="$root/tests/npm/project"
project="$dir/project"
planted="$dir/planted"
exec 9>"$dir/install.lock"
if command -v flock >/dev/null; then flock 9; fi

# The tarballs, then the project's own dependencies (kept while package.json is the same).
"$root/scripts/npm-pack.sh" --binary "$bin" --out "$dir/pack" >"$dir/tarballs"
if ! cmp -s "$source/package.json" "$dir/dependencies.json"; then
    rm -rf "$project" "$dir/dependencies.json" "$dir/installed"
    mkdir -p "$project"
    cp "$source/package.json" "$project/"
    (cd "$project" && npm install --no-audit --no-fund --loglevel=error >&2) || {
        echo "mock-agent: tests/npm/install.sh: npm install of $source/package.json failed; is the npm registry reachable? See npm's output above" >&2
        exit 1
    }
    cp "$source/package.json" "$dir/dependencies.json"
fi

# The sources, as the repository has them (the project's package.json gets the
# tarballs' lines again below).
rm -rf "$project/src" "$project/test" "$project/cassettes"
cp -R "$source/src" "$source/test" "$source/tsconfig.json" "$source/vitest.config.ts" "$project/"
mkdir -p "$project/cassettes"
cp "$root/cassettes/shell-command.cassette" "$project/cassettes/"

# The tarballs, installed as a user does; again only when they changed.
stamp="$(sha256sum "$dir"/pack/*.tgz | sha256sum)"
if [ "$stamp" != "$(cat "$dir/installed" 2>/dev/null)" ]; then
    cp "$source/package.json" "$project/"
    rm -rf "$project/node_modules/@mock-agent"
    (cd "$project" && npm install --no-audit --no-fund --loglevel=error "$dir"/pack/mock-agent-*.tgz >&2) || {
        echo "mock-agent: tests/npm/install.sh: npm install of the tarballs in $dir/pack failed; see npm's output above" >&2
        exit 1
    }
    echo "$stamp" >"$dir/installed"
fi

# The planted bugs: the project with the patches of tests/npm/planted/ applied, one
# bug in each program (each patch is that program's change).
rm -rf "$planted"
mkdir -p "$planted"
cp -R "$project/src" "$project/test" "$project/package.json" "$project/vitest.config.ts" "$planted/"
command -v patch >/dev/null || {
    echo "mock-agent: tests/npm/install.sh: patch not found, which plants the bugs of tests/npm/planted/*.patch; install it (apt-get install patch)" >&2
    exit 69
}
for bug in "$root"/tests/npm/planted/*.patch; do
    patch --quiet --forward -p1 -d "$planted" <"$bug" >&2 || {
        echo "mock-agent: tests/npm/install.sh: $bug does not apply to tests/npm/project/; make it again from the project's program (diff -u)" >&2
        exit 1
    }
done
ln -s "$project/node_modules" "$planted/node_modules"

echo "$project"
echo "$planted"
