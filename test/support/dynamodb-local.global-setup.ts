import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../lambdas/runtimes/local/dynamodb-local";
import { TEST_JVM } from "./child-process-env";

declare module "vitest" {
  export interface ProvidedContext {
    /** Endpoint of the one in-memory DynamoDB Local shared by the whole run. */
    dynamodbEndpoint: string;
    /** A folder of the run's own, removed when the run ends: for what a worker writes and cannot remove itself. */
    scratchDir: string;
  }
}

/**
 * One in-memory DynamoDB Local for the whole run; each test file makes its own table (test/support/dynamodb.ts).
 * And the run's scratch folder: a worker is stopped without its exit handlers, so the run removes it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamodb = await startDynamoDbLocal({ jvmOptions: TEST_JVM });
  project.provide("dynamodbEndpoint", dynamodb.endpoint);
  const scratchDir = mkdtempSync(join(tmpdir(), "crm-test-run-"));
  project.provide("scratchDir", scratchDir);
  return async () => {
    try {
      await dynamodb.stop();
    } finally {
      rmSync(scratchDir, { recursive: true, force: true });
    }
  };
}
