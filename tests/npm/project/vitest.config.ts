import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // A case's program gives up on a silent agent after a few seconds of its own.
    testTimeout: 30_000,
  },
});
