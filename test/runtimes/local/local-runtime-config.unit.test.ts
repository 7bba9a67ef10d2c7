import { describe, expect, test } from "vitest";
import { readLocalRuntimeConfig, StartupError } from "../../../lambdas/runtimes/local/local-runtime-config";

describe("TIME_SCALE, parsed once with the runtime's settings", () => {
  test("TIME_SCALE defaults to 1, takes a number >= 0, and refuses negative or non-numeric values", () => {
    expect(readLocalRuntimeConfig({}).TIME_SCALE).toBe(1);
    expect(readLocalRuntimeConfig({ TIME_SCALE: "0.01" }).TIME_SCALE).toBe(0.01);
    expect(readLocalRuntimeConfig({ TIME_SCALE: "0" }).TIME_SCALE).toBe(0);
    expect(() => readLocalRuntimeConfig({ TIME_SCALE: "-1" })).toThrow(StartupError);
    expect(() => readLocalRuntimeConfig({ TIME_SCALE: "fast" })).toThrow(StartupError);
  });
});
