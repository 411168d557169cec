// A session of two turns through `query()` with streaming input and a `canUseTool`
// callback, against the CLI at $CLAUDE_CLI: the first permission request is allowed,
// every later one denied ("Not now"). Each prompt is sent once the previous turn's
// result arrived. Prints `turn N`, a line per request the callback got
// (`can_use_tool TOOL -> allow|deny`), one summary line per message (summary.mjs) and
// `done`; exit 0. A run longer than 20 s prints `timeout` and exits 3.
import { query } from "@anthropic-ai/claude-agent-sdk";
import { deadline, show } from "./summary.mjs";

const done = deadline();
let asked = 0;
async function canUseTool(toolName, input) {
  asked += 1;
  if (asked === 1) {
    console.log(`can_use_tool ${toolName} -> allow`);
    return { behavior: "allow", updatedInput: input };
  }
  console.log(`can_use_tool ${toolName} -> deny`);
  return { behavior: "deny", message: "Not now" };
}

let turnEnded = () => {};
async function* prompts() {
  for (const [turn, prompt] of [[1, "Write the summary"], [2, "Write it again"]]) {
    const ended = new Promise((resolve) => (turnEnded = resolve));
    console.log(`turn ${turn}`);
    yield { type: "user", message: { role: "user", content: prompt }, parent_tool_use_id: null, session_id: "" };
    await ended;
  }
}

const options = { pathToClaudeCodeExecutable: process.env.CLAUDE_CLI, canUseTool, permissionMode: "default" };
for await (const message of query({ prompt: prompts(), options })) {
  show(message);
  if (message.type === "result") turnEnded();
}
console.log("done");
done();
