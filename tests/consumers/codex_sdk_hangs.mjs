// codex_sdk_hangs.mjs: a BUGGY program on the TypeScript SDK (`@openai/codex-sdk`): it
// waits for the turn with no abort signal, so a CLI that stalls hangs it for ever.
// mock-agent catches it with `ends` (the case's timeout).
import { join } from "node:path";

const sdk = await import(join(process.env.CODEX_SDK_NODE_MODULES, "@openai/codex-sdk/dist/index.js"));
const turn = await new sdk.Codex({ codexPathOverride: process.env.CODEX_CLI ?? "codex" })
  .startThread({ skipGitRepoCheck: true })
  .run("hi"); // BUG: no signal, no timeout
process.stdout.write(turn.finalResponse + "\n");
