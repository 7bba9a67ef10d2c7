import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, inject, test } from "vitest";
import { javaPidOnPort, nativeLibraryCopyOf } from "../../support/native-library-copy";

/** The data-directory case (a killed engine's copy, cleared at the restart) is checked by every crash life (crash-cases.ts). */
describe("DynamoDB Local's temporary files", () => {
  test("ENGINE_TMP_DIR: an in-memory engine copies its native library into its own scratch folder, never straight into the system's temporary folder", () => {
    // The suite's shared engine (test/support/dynamodb-local.global-setup.ts), started by startDynamoDbLocal.
    const copy = nativeLibraryCopyOf(javaPidOnPort(Number(new URL(inject("dynamodbEndpoint")).port)));
    expect(copy, "the engine maps its native library").toBeDefined();
    expect(dirname(copy!)).not.toBe(tmpdir());
    expect(dirname(dirname(copy!))).toBe(tmpdir());
    expect(basename(dirname(copy!))).toMatch(/^dynamodb-local-/);
  });
});
