// A one-shot `query()` of the TypeScript Claude Agent SDK, with a string prompt, against
// the CLI at $CLAUDE_CLI. Prints one summary line per message (summary.mjs) and `done`;
// exit 0. A run longer than 20 s prints `timeout` and exits 3.
import { query } from "@anthropic-ai/claude-agent-sdk";
import { deadline, show } from "./summary.mjs";

const done = deadline();
const options = { pathToClaudeCodeExecutable: process.env.CLAUDE_CLI, model: "sonnet", maxTurns: 3 };
for await (const message of query({ prompt: process.argv.slice(2).join(" ") || "Say hi", options })) {
  show(message);
}
console.log("done");
done();
