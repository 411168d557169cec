// A one-shot `query()` against a CLI at $CLAUDE_CLI that fails (the test sets
// MOCK_AGENT_FAULTS). Prints one summary line per message (summary.mjs), then how the
// run ended: `raised CLASS in=Ts: MESSAGE` (exit 1), or `no error` (exit 0) when the SDK
// threw nothing; a run longer than 20 s prints `timeout` and exits 3, so a hang fails
// and never sticks.
import { query } from "@anthropic-ai/claude-agent-sdk";
import { deadline, show } from "./summary.mjs";

const done = deadline();
const start = Date.now();
try {
  for await (const message of query({ prompt: "Say hi", options: { pathToClaudeCodeExecutable: process.env.CLAUDE_CLI } })) {
    show(message);
  }
} catch (error) {
  const seconds = Math.round((Date.now() - start) / 1000);
  console.log(`raised ${error.constructor.name} in=${seconds}s: ${String(error.message).split("\n")[0]}`);
  done();
  process.exit(1);
}
console.log("no error");
done();
