// Types of mock-agent's vitest fixture (lib/vitest.js). See docs/npm.md.
import type { TestAPI } from "vitest";

import type { MockAgent } from "./index.js";

export * from "./index.js";
export { expect, describe } from "vitest";

/** The fixtures `@mock-agent/mock-agent/vitest` adds. */
export interface MockAgentFixtures {
  /** The test's own agent, removed when the test ends. */
  mockAgent: MockAgent;
}

/** vitest's `test` with the fixture `mockAgent`. */
export declare const test: TestAPI<MockAgentFixtures>;
export declare const it: TestAPI<MockAgentFixtures>;
