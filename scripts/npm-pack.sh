#!/usr/bin/env bash
# The npm packages of mock-agent, built from this repository, as Rust tools ship on npm
# (esbuild, biome): the main package `@mock-agent/mock-agent` (a small launcher, the
# JavaScript API, the vitest fixture; npm/mock-agent/; `mock-agent` on npm is another
# project's) and the package of this platform holding the binary
# (`@mock-agent/linux-x64`, ...; npm/platforms/PLATFORM/), which the main one names in
# its optionalDependencies, so npm installs only the one whose os and cpu match.
# Versions are the workspace's (Cargo.toml). Each is `npm pack`ed:
#
#   scripts/npm-pack.sh                      # cargo build --release, then pack
#   scripts/npm-pack.sh --binary PATH        # pack this built binary instead
#   scripts/npm-pack.sh --out DIR            # where the tarballs go
#
# Prints the path of each tarball, the main package's first:
#   .../npm/pack/mock-agent-mock-agent-0.1.0.tgz
#   .../npm/pack/mock-agent-linux-x64-0.1.0.tgz
# Install both in a project: `npm install ./mock-agent-*.tgz` (docs/npm.md).
#
# Where: DIR, else npm/pack in the cargo target directory ($CARGO_TARGET_DIR, else
# target/); the packages are laid out in npm/stage beside it. Only this machine's
# platform is built (a platform package holds a binary built for it): this script does
# not cross-compile, and only linux-x64 has been packed and tested (the other
# manifests of npm/platforms/ are packed by running it on such a machine). Needs
# cargo, node 18+ and npm; no network.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/npm/pack"
bin=""

fail() {
    echo "mock-agent: scripts/npm-pack.sh: $1" >&2
    exit "${2:-1}"
}

while [ $# -gt 0 ]; do
    case "$1" in
    --binary)
        [ $# -ge 2 ] || fail "--binary needs the path of a built mock-agent binary" 64
        bin="$2"
        shift 2
        ;;
    --out)
        [ $# -ge 2 ] || fail "--out needs a folder" 64
        out="$2"
        shift 2
        ;;
    -h | --help)
        sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) fail "unknown argument '$1'; give --binary PATH, --out DIR or nothing" 64 ;;
    esac
done

command -v node >/dev/null || fail "node not found; install node 18+ with npm (apt-get install nodejs npm)" 69
command -v npm >/dev/null || fail "npm not found; install node 18+ with npm (apt-get install nodejs npm)" 69

version="$(cd "$root" && cargo metadata --no-deps --format-version 1 |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="mock-agent");if(!p)process.exit(1);console.log(p.version)})')" ||
    fail "cannot read the version of the mock-agent crate (cargo metadata failed)"
platform="$(node -p 'process.platform + "-" + process.arch')"
exe="mock-agent"
[ "${platform%%-*}" = win32 ] && exe="mock-agent.exe"
template="$root/npm/platforms/$platform"
[ -f "$template/package.json" ] ||
    fail "no package for this platform ($platform) in npm/platforms/; there are: $(ls "$root/npm/platforms" | tr '\n' ' ')" 69

if [ -z "$bin" ]; then
    (cd "$root" && cargo build --release --locked -p mock-agent --bin mock-agent >&2) ||
        fail "cargo build --release failed; see cargo's output above"
    bin="$target/release/$exe"
fi
[ -x "$bin" ] || fail "$bin is no executable file; give --binary the path of a built mock-agent" 66

mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(dirname "$out")/stage"
rm -rf "$stage"
mkdir -p "$stage"
cp -R "$root/npm/mock-agent" "$stage/mock-agent"
cp -R "$template" "$stage/$platform"
mkdir -p "$stage/$platform/bin"
cp "$bin" "$stage/$platform/bin/$exe"
chmod 755 "$stage/$platform/bin/$exe"
# A debug build's symbols are most of its size; the code stays the same.
if command -v strip >/dev/null && [ "$exe" = mock-agent ]; then
    strip --strip-debug "$stage/$platform/bin/$exe" 2>/dev/null || true
fi

# Every version the workspace's: the packages' own and the main one's optionalDependencies.
node - "$version" "$stage/mock-agent/package.json" "$stage/$platform/package.json" <<'EOF'
const fs = require("fs");
const [version, ...files] = process.argv.slice(2);
for (const file of files) {
  const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
  manifest.version = version;
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
    manifest.optionalDependencies[name] = version;
  }
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
}
EOF

for package in mock-agent "$platform"; do
    name="$(cd "$stage/$package" && npm pack --pack-destination "$out" --loglevel=error)" ||
        fail "npm pack of $stage/$package failed; see npm's output above"
    echo "$out/$name"
done
