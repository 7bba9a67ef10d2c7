import { describe, expect, test } from "vitest";
import { parseOptions } from "../../../bin/bench/options";

describe("the bench's options", () => {
  test("--runs runs each measurement that many times; one run when it is not given", () => {
    expect(parseOptions(["--only", "rate", "--runs", "3"], {})).toMatchObject({ only: ["rate"], runs: 3 });
    expect(parseOptions(["--quick"], {})).toMatchObject({ size: "quick", runs: 1 });
  });

  test("--runs needs an integer >= 1", () => {
    for (const bad of [[], ["0"], ["2.5"], ["three"]]) {
      expect(() => parseOptions(["--runs", ...bad], {}), bad.join(" ")).toThrow("--runs needs an integer >= 1");
    }
  });
});
