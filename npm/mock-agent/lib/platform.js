// Which package holds the mock-agent binary of this machine: one package per platform,
// each installed only where its `os` and `cpu` match (the `optionalDependencies` of
// @mock-agent/mock-agent), as esbuild and biome ship their binaries. A package is packed
// by scripts/npm-pack.sh on a machine of its platform; only linux-x64 has been so far.
import { createRequire } from "node:module";
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** The platforms a package is declared for (npm/platforms/): `${process.platform}-${process.arch}`. */
export const PLATFORMS = Object.freeze([
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
]);

/** The package that holds the binary for a platform. */
export function platformPackage(platform = process.platform, arch = process.arch) {
  return `@mock-agent/${platform}-${arch}`;
}

/**
 * The path of the binary the platform package installed, or an error saying why there
 * is none: `{ path }` or `{ error }`.
 */
export function installedBinary(platform = process.platform, arch = process.arch) {
  const key = `${platform}-${arch}`;
  const name = platformPackage(platform, arch);
  if (!PLATFORMS.includes(key)) {
    return {
      error:
        `mock-agent: no package of mock-agent for this platform, ${key} (there are ${PLATFORMS.join(", ")})\n` +
        "help: build the binary from the repository (`cargo build --release -p mock-agent`) and set MOCK_AGENT_BIN=target/release/mock-agent",
    };
  }
  let manifest;
  try {
    manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
  } catch {
    return {
      error:
        `mock-agent: the package ${name}, which holds the binary for this platform (${key}), is not installed\n` +
        "help: install @mock-agent/mock-agent with its optional dependencies (not `--omit=optional`); " +
        "from a local build, install both tarballs of scripts/npm-pack.sh (`npm install ./mock-agent-*.tgz`), " +
        `which packs only the platform it runs on: run it on ${key}; ` +
        "or build the binary (`cargo build --release -p mock-agent`) and set MOCK_AGENT_BIN=target/release/mock-agent",
    };
  }
  const file = path.join(path.dirname(manifest), "bin", platform === "win32" ? "mock-agent.exe" : "mock-agent");
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return {
      error:
        `mock-agent: ${file}: the binary of ${name} is missing or not executable\n` +
        "help: reinstall it (`npm install --force @mock-agent/mock-agent`), or set MOCK_AGENT_BIN=PATH of a built mock-agent",
    };
  }
  return { path: file };
}
