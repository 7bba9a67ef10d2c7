import { describe, expect, test } from "vitest";
import { summarizeCell, summarizeRuns } from "../../../bin/bench/runs-summary";
import type { Cell, Table } from "../../../bin/bench/table";

/** One run's rate table, as the rate-bound measurement prints it: the rate, then its cells. */
const rateTable = (rows: readonly (readonly Cell[])[]): Table => ({
  title: "Rate-bound",
  columns: ["rate_limit", "achieved / ceiling", "met", "floor (ms)"],
  rows,
});

describe("the bench's summary of several runs (--runs)", () => {
  test("each number of a cell becomes its median over the runs, and the cell's first number gets its spread", () => {
    expect(summarizeCell(["0.905", "1.029", "0.851"])).toBe("0.905 [0.851–1.029]");
    expect(summarizeCell(["91.4 (100.8, 86.0)", "110.2 (108.9, 114.5)", "111.4 (101.9, 121.7)"])).toBe("110.2 (101.9, 114.5) [91.4–111.4]");
    expect(summarizeCell(["8.9 (8.4%)", "9.1 (8.3%)", "9.3 (7.7%)"])).toBe("9.1 (8.3%) [8.9–9.3]");
    // An even number of runs: the mean of the two middle ones, written with the runs' decimals.
    expect(summarizeCell([1, 2, 4, 10])).toBe("3 [1–10]");
  });

  test("a range's dash is not read as a minus, a real minus is, and thousands groups are kept", () => {
    expect(summarizeCell(["106.7 (87.2-120.4)", "109.8 (97.7-123.2)", "135.4 (124.7-148.3)"])).toBe("109.8 (97.7-123.2) [106.7–135.4]");
    expect(summarizeCell(["-2.4", "0.3", "0.4"])).toBe("0.3 [-2.4–0.4]");
    expect(summarizeCell(["1,200", "980", "1,000"])).toBe("1,000 [980–1,200]");
  });

  test("a cell that is the same in every run is left as it is", () => {
    expect(summarizeCell(["21,048", "21,048", "21,048"])).toBe("21,048");
    expect(summarizeCell([212, 212, 212])).toBe(212);
    expect(summarizeCell(["succeeded", "succeeded"])).toBe("succeeded");
  });

  test("text that differs between runs lists every run's, in run order", () => {
    expect(summarizeCell(["no", "yes", "yes"])).toBe("no / yes / yes");
    // Numbers under different words are not mixed either.
    expect(summarizeCell(["10.2 / 100%", "n/a", "10.2 / 90%"])).toBe("10.2 / 100% / n/a / 10.2 / 90%");
  });

  test("rows are matched by their first cell, in any order; a row some run lacks is left out and named", () => {
    const runs = [
      [rateTable([[20, "0.948", "no", "112.9"], [50, "1.066", "yes", "109.1"]])],
      [rateTable([[50, "0.970", "yes", "119.7"], [20, "0.847", "no", "113.3"]])],
      [rateTable([[20, "0.830", "no", "102.3"]])],
    ];

    const [summary] = summarizeRuns(runs);

    expect(summary).toEqual({
      title: "Rate-bound: median of 3 runs",
      columns: ["rate_limit", "achieved / ceiling", "met", "floor (ms)"],
      rows: [[20, "0.847 [0.830–0.948]", "no", "112.9 [102.3–113.3]"]],
      notes: [expect.stringContaining("median over the 3 runs"), "left out, missing from some run: 50"],
    });
  });

  test("every table of the first run gets a summary, found in the other runs by its title", () => {
    const other: Table = { title: "Breakdown", columns: ["part", "ms"], rows: [["fetch", "3.0"]] };
    const runs = [
      [rateTable([[100, "0.979", "yes", "113.5"]]), other],
      [{ ...other, rows: [["fetch", "3.4"]] }, rateTable([[100, "0.968", "yes", "124.4"]])],
    ];

    expect(summarizeRuns(runs).map((table) => [table.title, table.rows])).toEqual([
      ["Rate-bound: median of 2 runs", [[100, "0.974 [0.968–0.979]", "yes", "119.0 [113.5–124.4]"]]],
      ["Breakdown: median of 2 runs", [["fetch", "3.2 [3.0–3.4]"]]],
    ]);
  });
});
