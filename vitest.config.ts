import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One DynamoDB Local (in memory) for the whole run; its endpoint reaches the tests through the environment.
    globalSetup: ["test/support/dynamodb-local.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // vitest's default is one worker per core minus one: a single worker on a 2-core machine, idle while it waits on
    // DynamoDB Local (Java, its own process), child processes and scaled waits. Two keep both cores busy.
    maxWorkers: 2,
    // A worker runs file after file in one module graph: each file no longer pays the import of the SDK, CDK and the
    // domain (0.5-1 s a file) nor CDK's first, slow synth again. Safe because nothing here keeps state in a module:
    // clients, tables, servers and clocks are made per file and injected.
    isolate: false,
    // Node 20 here, nodejs22.x in Lambda: the SDK's Node 22 notice is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
