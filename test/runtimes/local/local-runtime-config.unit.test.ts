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

describe("FETCH_AHEAD, parsed once with the runtime's settings", () => {
  test("fetch ahead is on by default (docs/throughput.md#fetch-ahead), as in AWS: FETCH_AHEAD=false turns it off, and any other value stops the start naming it", () => {
    expect(readLocalRuntimeConfig({}).FETCH_AHEAD).toBe(true);
    expect(readLocalRuntimeConfig({ FETCH_AHEAD: "true" }).FETCH_AHEAD).toBe(true);
    expect(readLocalRuntimeConfig({ FETCH_AHEAD: "false" }).FETCH_AHEAD).toBe(false);
    for (const bad of ["", "0", "off", "FALSE", " false"]) {
      expect(() => readLocalRuntimeConfig({ FETCH_AHEAD: bad }), JSON.stringify(bad)).toThrow(StartupError);
      expect(() => readLocalRuntimeConfig({ FETCH_AHEAD: bad }), JSON.stringify(bad)).toThrow(/FETCH_AHEAD must be true or false/);
    }
  });
});
