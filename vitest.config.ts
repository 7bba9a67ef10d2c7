import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One DynamoDB Local (in memory) for the whole run; its endpoint reaches the tests through the environment.
    globalSetup: ["test/support/dynamodb-local.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
