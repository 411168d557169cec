// An ACP client, tested against every case of Cursor's server mode (`cursor-agent acp`).
import { cases, expect, test } from "@mock-agent/mock-agent/vitest";

import { ask } from "../src/ask.ts";

test.for(cases({ dialect: "cursor-acp" }))("ask copes with $name", async (kase, { mockAgent }) => {
  mockAgent.use({ case: kase });
  const outcome = await mockAgent.call((signal) =>
    ask("Summarize the repo", { command: mockAgent.bin("cursor-agent"), env: mockAgent.env, signal }),
  );
  const verdict = await mockAgent.judge(outcome);
  expect(verdict.broken).toEqual([]);
});
