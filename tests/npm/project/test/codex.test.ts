// A program on the Codex SDK, tested against every case of Codex's matrix.
import { cases, expect, test } from "@mock-agent/mock-agent/vitest";

import { fix } from "../src/fix.ts";

test.for(cases({ dialect: "codex" }))("fix copes with $name", async (kase, { mockAgent }) => {
  mockAgent.use({ case: kase });
  const outcome = await mockAgent.call((signal) =>
    fix("Fix the failing test", { codex: mockAgent.bin("codex"), env: mockAgent.env, signal }),
  );
  const verdict = await mockAgent.judge(outcome);
  expect(verdict.broken).toEqual([]);
});
