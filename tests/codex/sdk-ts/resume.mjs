// A thread's second turn (`resume ID`), and the thread resumed by id from a new
// `Codex`: the usage is the thread's running total.
import { codex, out } from "./summary.mjs";

const thread = codex().startThread({ skipGitRepoCheck: true });
const first = await thread.run("Create made.txt and notes.md");
out(`first input=${first.usage.input_tokens}`);
const second = await thread.run("Go on");
out(`second input=${second.usage.input_tokens}`);
const resumed = codex().resumeThread(thread.id, { skipGitRepoCheck: true });
const third = await resumed.run("And again");
out(`third input=${third.usage.input_tokens} same=${resumed.id === thread.id}`);
out("done");
