// The record modes on the real Claude Code, through the real Claude Agent SDK: the
// program of src/summarize.ts, its run recorded into one cassette the first time
// (`use({ dialect: "claude", cassette, record: "once" })`) and replayed from then on.
// tests/npm.rs runs this file twice with RECORD_CASSETTES set: first with the real
// Claude Code (MOCK_AGENT_REAL_CLAUDE) against the scripted model API (MODEL_API_URL),
// then with neither. Without RECORD_CASSETTES (the suite's other runs), it is skipped.
import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { cases } from "@mock-agent/mock-agent";
import { expect, test, type MockAgent } from "@mock-agent/mock-agent/vitest";
import { summarize } from "../src/summarize.ts";

const folder = process.env.RECORD_CASSETTES;

/** The agent's journal once the CLI the SDK stopped has written it (at most 5 s). */
async function journal(agent: MockAgent) {
  for (let waited = 0; agent.journal().length === 0 && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return agent.journal();
}

test.runIf(folder != null)("summarize is recorded from the real Claude Code once, then replayed", async ({ mockAgent }) => {
  const cassette = path.join(folder ?? "", "summarize.cassette");
  const recording = !existsSync(cassette);
  mockAgent.use({ dialect: "claude", cassette, record: "once" });
  // What the real Claude Code needs offline: a home of its own, the model API (a closed port when there is none).
  const env = {
    ...mockAgent.env,
    HOME: mkdtempSync(path.join(os.tmpdir(), "mock-agent-home-")),
    ANTHROPIC_BASE_URL: process.env.MODEL_API_URL ?? "http://127.0.0.1:9",
    ANTHROPIC_API_KEY: "sk-ant-test-not-in-the-cassette",
    CLAUDE_CODE_MAX_RETRIES: "0",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  const answer = await summarize("Do what the script says.", { claude: mockAgent.bin("claude"), env, idle: 60_000 });
  const runs = recording ? mockAgent.journal() : await journal(mockAgent);
  console.log(`RECORD ${recording ? "RECORDED" : "REPLAYED"} ${runs.length} ${JSON.stringify(answer)}`);
  expect(existsSync(cassette)).toBe(true);
  if (!recording) {
    expect(runs.map((entry) => entry.source)).toEqual([cassette]);
    // Judged by the cassette's case: the program concluded what the recorded run says.
    const [kase] = cases({ dialect: "claude", cassettes: [cassette], default: false, faults: [""] });
    expect(await kase.broken({ exitCode: 0, stdout: `${answer}\n`, stderr: "" })).toEqual([]);
  }
}, 120_000);
