// One turn streamed with `thread.runStreamed()`: every event's type.
import { codex, out } from "./summary.mjs";

const thread = codex().startThread({ skipGitRepoCheck: true });
const { events } = await thread.runStreamed("Create made.txt and notes.md");
for await (const event of events) {
  out(`event ${event.type}` + (event.item ? ` ${event.item.type}` : ""));
}
out("done");
