import { defineConfig } from "vitest/config";

/**
 * The fast unit tier (`npm run test:unit`): pure domain, records, page
 * planning, the ASL walkers and the architecture rules. Seconds, no Java: this
 * config has no DynamoDB Local global setup, so a test here that reached for
 * DynamoDB would fail at once (test/support/dynamodb.ts), and
 * test/architecture/unit-tier.test.ts checks that none imports it.
 * `npm test` (vitest.config.ts) still runs every test, these included.
 */

/** Folders whose every test is pure. */
export const UNIT_FOLDERS = ["test/architecture", "test/records"];

/** Pure tests in folders that also hold integration tests (on DynamoDB Local or the local runtime). */
export const UNIT_FILES = [
  "test/ingestion/prepare-page.test.ts",
  "test/store/page-transactions.test.ts",
  "test/statemachine/sync-definition.test.ts",
  "test/sync/rate-limited-source-client.test.ts",
  "test/sync/schedule-interval.test.ts",
  "test/sync/stage-kinds-memo.test.ts",
  "test/onboarding/auth/session-claims.test.ts",
  "test/onboarding/funnel-analytics.test.ts",
  "test/source/envelope.test.ts",
  "test/source/retry-after.test.ts",
  "test/source/redact-secret.test.ts",
  "test/source/ssrf/address-policy.test.ts",
];

export default defineConfig({
  test: {
    include: [...UNIT_FOLDERS.map((folder) => `${folder}/**/*.test.ts`), ...UNIT_FILES],
    pool: "forks",
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
