import { defineConfig } from "vitest/config";

/**
 * The fast unit tier (`npm run test:unit`): every test file named
 * `*.unit.test.ts` (pure domain, records, page planning, the ASL walkers, the
 * architecture rules). Seconds, no Java: this config has no DynamoDB Local
 * global setup, so a unit test that reached for DynamoDB would fail at once
 * (test/support/dynamodb.ts), and test/architecture/unit-tier.unit.test.ts
 * checks that none imports it. `npm test` (vitest.config.ts) still runs every
 * test, these included.
 */

/** What names a unit test: the tier is chosen by file name, not by a list. */
export const UNIT_TEST_SUFFIX = ".unit.test.ts";

export default defineConfig({
  test: {
    include: [`test/**/*${UNIT_TEST_SUFFIX}`],
    pool: "forks",
    // As in vitest.config.ts: two workers that keep their module graph, not vitest's one worker on 2 cores.
    maxWorkers: 2,
    isolate: false,
    // As in vitest.config.ts: a busy machine slows a test down, it does not make it wrong.
    testTimeout: 30_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
