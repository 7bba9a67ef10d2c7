import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../lambdas/runtimes/local/dynamodb-local";
import { TEST_JVM } from "./child-process-env";

declare module "vitest" {
  export interface ProvidedContext {
    /** Endpoint of the one in-memory DynamoDB Local shared by the whole run. */
    dynamodbEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file makes its own table (test/support/dynamodb.ts). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamodb = await startDynamoDbLocal({ jvmOptions: TEST_JVM });
  project.provide("dynamodbEndpoint", dynamodb.endpoint);
  return async () => {
    await dynamodb.stop();
  };
}
