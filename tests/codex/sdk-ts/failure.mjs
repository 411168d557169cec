// A turn that fails: `thread.run()` throws the SDK's own error.
import { codex, out, raised } from "./summary.mjs";

try {
  const turn = await codex().startThread({ skipGitRepoCheck: true }).run("Create made.txt and notes.md");
  out(`final ${turn.finalResponse}`);
} catch (error) {
  raised(error);
}
out("done");
