// One turn with `thread.run()`: the items, the final response, the usage.
import { codex, itemLine, out } from "./summary.mjs";

const thread = codex().startThread({ skipGitRepoCheck: true });
const turn = await thread.run("Create made.txt and notes.md");
for (const item of turn.items) out(itemLine(item));
out(`thread ${thread.id ? "set" : "unset"}`);
out(`final ${turn.finalResponse}`);
out(`usage input=${turn.usage.input_tokens} output=${turn.usage.output_tokens}`);
out("done");
