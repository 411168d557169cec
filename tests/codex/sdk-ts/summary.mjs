// What the programs print, one line a thing the SDK gave them (shared by them all).
import { Codex } from "@openai/codex-sdk";

const start = Date.now();

/** The SDK, running the mock (linked as `codex`) in place of the platform binary. */
export function codex() {
  return new Codex({ codexPathOverride: process.env.CODEX_CLI });
}

export function out(line) {
  process.stdout.write(line + "\n");
}

/** The SDK's own error, as the last line: its class, how long it took, its message. */
export function raised(error) {
  const seconds = Math.floor((Date.now() - start) / 1000);
  const first = String(error.message ?? error).split("\n")[0];
  out(`raised ${error.constructor.name} in=${seconds}s: ${first}`);
  process.exit(1);
}

export function itemLine(item) {
  return `item ${item.type}` + (item.status !== undefined ? ` ${item.status}` : "");
}
