// codex_sdk_careful.mjs: a CORRECT program built on OpenAI's TypeScript SDK
// (`@openai/codex-sdk`), which runs `codex exec --experimental-json`. The SDK is imported
// from $CODEX_SDK_NODE_MODULES (scripts/codex-sdks.sh ts prints it).
//
// What it does to survive mock-agent's `codex` dialect:
// - the binary is $CODEX_CLI if set, else `codex` on PATH (`codexPathOverride`);
// - success only when `thread.run()` returns with a usage (the SDK returns quietly, with
//   `usage: null`, when the CLI exits 0 before `turn.completed`): the answer is its
//   `finalResponse`; whatever the SDK throws (a failed turn, an exit code, a signal, a
//   line it cannot parse) is failure, with its message;
// - a watchdog: `turnOptions.signal` aborts a run longer than CONSUMER_TOTAL_TIMEOUT
//   seconds (default 10), so a stalled CLI never hangs the program (the SDK kills it).
//
// Prints the final message and a newline on success (exit 0); on failure prints one line
// starting `consumer: agent failed` on stderr and exits 1.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

const sdk = await import(join(process.env.CODEX_SDK_NODE_MODULES, "@openai/codex-sdk/dist/index.js"));
const seconds = Number(process.env.CONSUMER_TOTAL_TIMEOUT ?? "10");

function binary() {
  if (process.env.CODEX_CLI) return process.env.CODEX_CLI;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "codex"))) return join(dir, "codex");
  }
  return "codex";
}

try {
  const codex = new sdk.Codex({ codexPathOverride: binary() });
  const thread = codex.startThread({ skipGitRepoCheck: true });
  const turn = await thread.run(process.argv[2] ?? "hi", { signal: AbortSignal.timeout(seconds * 1000) });
  if (turn.usage === null) throw new Error("the CLI ended before the turn completed");
  process.stdout.write(turn.finalResponse + "\n");
  process.exit(0);
} catch (error) {
  process.stderr.write(`consumer: agent failed: ${String(error.message ?? error).split("\n")[0]}\n`);
  process.exit(1);
}
