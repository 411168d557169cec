// codex_sdk_error_as_success.mjs: a BUGGY program on the TypeScript SDK
// (`@openai/codex-sdk`): whatever `thread.run()` throws is swallowed and the run reported
// as a success with an empty answer. mock-agent catches it with `reports-failure`.
import { join } from "node:path";

const sdk = await import(join(process.env.CODEX_SDK_NODE_MODULES, "@openai/codex-sdk/dist/index.js"));
let answer = "";
try {
  const turn = await new sdk.Codex({ codexPathOverride: process.env.CODEX_CLI ?? "codex" })
    .startThread({ skipGitRepoCheck: true })
    .run("hi", { signal: AbortSignal.timeout(10000) });
  answer = turn.finalResponse;
} catch {
  // BUG: a failure is not an answer
}
process.stdout.write(answer + "\n");
process.exit(0);
