// Which package holds the mock-agent binary of this machine: one package per platform,
// each installed only where its `os` and `cpu` match (the `optionalDependencies` of
// mock-agent), as esbuild and biome ship their binaries.
import { createRequire } from "node:module";
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** The platforms a package is made for: `${process.platform}-${process.arch}`. */
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
        `mock-agent: no build of mock-agent for ${key} (there are ${PLATFORMS.join(", ")})\n` +
        "help: build it from the repository (`cargo build --release -p mock-agent`) and set MOCK_AGENT_BIN to target/release/mock-agent",
    };
  }
  let manifest;
  try {
    manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
  } catch {
    return {
      error:
        `mock-agent: the package ${name}, which holds the binary for ${key}, is not installed\n` +
        "help: install mock-agent with its optional dependencies (not `--omit=optional`); " +
        `from a local build, install both tarballs: \`npm install ./mock-agent-*.tgz\`; or set MOCK_AGENT_BIN`,
    };
  }
  const file = path.join(path.dirname(manifest), "bin", platform === "win32" ? "mock-agent.exe" : "mock-agent");
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return {
      error:
        `mock-agent: ${file}: the binary of ${name} is missing or not executable\n` +
        "help: reinstall mock-agent (`npm install --force mock-agent`), or set MOCK_AGENT_BIN",
    };
  }
  return { path: file };
}
