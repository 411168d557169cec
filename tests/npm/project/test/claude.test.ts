// A program on the Claude Agent SDK, tested against every case of Claude Code's matrix.
import { cases, expect, test } from "@mock-agent/mock-agent/vitest";

import { summarize } from "../src/summarize.ts";

test.for(cases({ dialect: "claude" }))("summarize copes with $name", async (kase, { mockAgent }) => {
  mockAgent.use({ case: kase });
  const outcome = await mockAgent.call((signal) =>
    summarize("Summarize the README", { claude: mockAgent.bin("claude"), env: mockAgent.env, signal }),
  );
  const verdict = await mockAgent.judge(outcome);
  expect(verdict.broken).toEqual([]);
});
