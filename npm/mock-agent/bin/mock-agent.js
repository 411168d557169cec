#!/usr/bin/env node
// The `mock-agent` command of the npm package: runs the binary of this platform's
// package (or MOCK_AGENT_BIN) with the same arguments, stdio and environment, and ends
// as it ends (its exit code, or the signal that killed it). No binary: exit 69
// (CANNOT_RUN, as the mock's own exit codes go).
import { spawnSync } from "node:child_process";
import { binary, MockAgentError } from "../lib/index.js";

let file;
try {
  file = binary();
} catch (error) {
  if (!(error instanceof MockAgentError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(69);
}
const done = spawnSync(file, process.argv.slice(2), { stdio: "inherit" });
if (done.error) {
  process.stderr.write(`mock-agent: cannot run ${file}: ${done.error.message}\n`);
  process.exit(69);
}
if (done.signal) {
  process.kill(process.pid, done.signal);
}
process.exit(done.status ?? 1);
