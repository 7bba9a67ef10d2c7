import { describe, expect, test } from "vitest";
import { readLocalRuntimeConfig, StartupError } from "../../../lambdas/runtimes/local/local-runtime-config";

describe("the crash-gate settings", () => {
  test("CRASH_GATES is off unless set, and only ever a loopback http URL", () => {
    expect(readLocalRuntimeConfig({}).CRASH_GATES).toBeUndefined();
    for (const url of ["http://127.0.0.1:9000/gate", "http://[::1]:9000/gate", "http://localhost:9000/gate"]) {
      expect(readLocalRuntimeConfig({ CRASH_GATES: url }).CRASH_GATES).toBe(url);
    }
    for (const url of ["http://10.0.0.5:9000/gate", "https://127.0.0.1:9000/gate", "http://example.com/gate", "127.0.0.1:9000", ""]) {
      expect(() => readLocalRuntimeConfig({ CRASH_GATES: url }), url).toThrow(StartupError);
      expect(() => readLocalRuntimeConfig({ CRASH_GATES: url }), url).toThrow(/CRASH_GATES must be an http URL on 127\.0\.0\.1/);
    }
  });

  test("PAGE_TASKS_PER_EXECUTION is the service's default unless set, and a whole number >= 1 when set", () => {
    expect(readLocalRuntimeConfig({}).PAGE_TASKS_PER_EXECUTION).toBeUndefined();
    expect(readLocalRuntimeConfig({ PAGE_TASKS_PER_EXECUTION: "3" }).PAGE_TASKS_PER_EXECUTION).toBe(3);
    for (const bad of ["0", "-1", "2.5", "three", ""]) {
      expect(() => readLocalRuntimeConfig({ PAGE_TASKS_PER_EXECUTION: bad }), bad).toThrow(/PAGE_TASKS_PER_EXECUTION must be a whole number >= 1/);
    }
  });
});
