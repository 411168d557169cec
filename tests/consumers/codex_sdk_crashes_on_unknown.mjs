// codex_sdk_crashes_on_unknown.mjs: a BUGGY program on the TypeScript SDK
// (`@openai/codex-sdk`): it streams the turn and treats an event or item type it does
// not know as fatal, though the SDK passes them on as they are (the protocol grows).
// mock-agent catches it with `ignores-unknown`.
import { join } from "node:path";

const sdk = await import(join(process.env.CODEX_SDK_NODE_MODULES, "@openai/codex-sdk/dist/index.js"));
const EVENTS = ["thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed", "error"];
const ITEMS = ["agent_message", "reasoning", "command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list", "error"];
const thread = new sdk.Codex({ codexPathOverride: process.env.CODEX_CLI ?? "codex" }).startThread({ skipGitRepoCheck: true });
const { events } = await thread.runStreamed("hi", { signal: AbortSignal.timeout(10000) });
let answer = "";
for await (const event of events) {
  if (!EVENTS.includes(event.type)) throw new Error(`unknown event ${event.type}`); // BUG
  if (event.item && !ITEMS.includes(event.item.type)) throw new Error(`unknown item ${event.item.type}`); // BUG
  if (event.type === "item.completed" && event.item.type === "agent_message") answer = event.item.text;
  if (event.type === "turn.failed") {
    process.stderr.write("consumer: agent failed\n");
    process.exit(1);
  }
}
process.stdout.write(answer + "\n");
