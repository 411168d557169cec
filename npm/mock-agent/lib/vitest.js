// The vitest fixture of mock-agent: `test` is vitest's `test` extended with `mockAgent`,
// an agent of the test's own (a MockAgent: its executables, `env`, journal), removed
// when the test ends. Every case of a matrix is a test of its own through `test.for`:
//
//   import { test, expect, cases } from "@mock-agent/mock-agent/vitest";
//   test.for(cases({ dialect: "claude" }))("copes with $name", async (kase, { mockAgent }) => {
//     mockAgent.use({ case: kase });
//     ...
//   });
import { test as base } from "vitest";

import { MockAgent } from "./index.js";

export * from "./index.js";
export { expect, describe } from "vitest";

/** vitest's `test` with the fixture `mockAgent`. */
export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture needs from this pattern
  mockAgent: async ({}, use) => {
    const agent = new MockAgent();
    try {
      await use(agent);
    } finally {
      agent.close();
    }
  },
});

export const it = test;
