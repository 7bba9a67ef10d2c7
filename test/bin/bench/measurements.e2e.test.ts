import { describe, expect, inject, test } from "vitest";
import type { BenchContext } from "../../../bin/bench/bench-env";
import { MEASURE } from "../../../bin/bench/measurements";
import { MEASUREMENTS, parseOptions } from "../../../bin/bench/options";
import { formatTable } from "../../../bin/bench/table";

/**
 * `npm run bench` asserts nothing and no test ran it, so a measurement could
 * rot unseen (the orchestration one once died on a step outcome its plain
 * loop did not know). Each runs here in its smoke size, the smallest that
 * still takes every step: the test checks that it finishes and prints its
 * rows, never what the figures are.
 */
describe("every bench measurement runs to the end in its smoke size", () => {
  const context = (): BenchContext => ({
    endpoint: inject("dynamodbEndpoint"),
    size: "smoke",
    progress: () => {},
  });

  test("the bench's options name every measurement, and --smoke selects the smoke size", () => {
    expect(Object.keys(MEASURE).sort()).toEqual([...MEASUREMENTS].sort());
    expect(parseOptions(["--smoke"], {})).toMatchObject({ size: "smoke", only: [...MEASUREMENTS] });
  });

  test.each(MEASUREMENTS)("%s finishes and prints a row for each of its tables", { timeout: 120_000 }, async (name) => {
    const result = await MEASURE[name](context());
    expect(result.tables.length).toBeGreaterThan(0);
    for (const table of result.tables) {
      expect(table.rows.length, table.title).toBeGreaterThan(0);
      for (const row of table.rows) expect(row, table.title).toHaveLength(table.columns.length);
      const printed = formatTable(table).split("\n");
      // Title, blank line, header, rule, then one line per row.
      expect(printed.slice(4, 4 + table.rows.length).every((line) => line.startsWith("| "))).toBe(true);
    }
  });
});
