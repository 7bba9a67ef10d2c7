import { median } from "./stats";
import type { Cell, Table } from "./table";

/**
 * One measurement run several times (`npm run bench -- --runs 3`): its tables
 * summed up as the issues state their targets, the median of the runs with
 * their spread. Each table of the first run gives one summary table; a row is
 * matched across runs by its first cell (the rate, the size, ...), and a row
 * that some run lacks is left out. A cell whose text is the same in every run
 * stays as it is. One whose numbers moved but whose words did not gets, in
 * place of each number, the median of that number over the runs, then the
 * first number's lowest and highest in brackets: "0.970 [0.847–0.981]".
 * Anything else (a yes in one run, a no in another) lists every run's text:
 * "no / yes / yes".
 */
export function summarizeRuns(runs: readonly (readonly Table[])[]): Table[] {
  const [first, ...rest] = runs;
  if (first === undefined) return [];
  return first.map((table) => {
    const others = rest.map((run) => run.find((each) => each.title === table.title));
    const rows: Cell[][] = [];
    const dropped: string[] = [];
    for (const row of table.rows) {
      const key = String(row[0]);
      const matches = others.map((other) => other?.rows.find((each) => String(each[0]) === key));
      if (matches.some((match) => match === undefined)) {
        dropped.push(key);
        continue;
      }
      const all = [row, ...(matches as (readonly Cell[])[])];
      rows.push(row.map((cell, column) => (column === 0 ? cell : summarizeCell(all.map((each) => each[column] ?? "")))));
    }
    return {
      title: `${table.title}: median of ${runs.length} runs`,
      columns: table.columns,
      rows,
      notes: [
        `each number is the median over the ${runs.length} runs; [low–high] is the spread of the cell's first number; "a / b / c" lists text that differed between runs`,
        ...(dropped.length > 0 ? [`left out, missing from some run: ${dropped.join(", ")}`] : []),
      ],
    };
  });
}

/**
 * A number as the tables print it: a sign only where no digit or point comes
 * before it (so the dash of a range "87.2-120.4" is not read as a minus), and
 * thousands groups only of three digits (so "100, 86" is two numbers).
 */
const NUMBER = /(?<![\d.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/g;

export function summarizeCell(cells: readonly Cell[]): Cell {
  const texts = cells.map(String);
  const [text] = texts;
  if (text === undefined || texts.every((each) => each === text)) return cells[0] ?? "";
  const words = texts.map((each) => each.split(NUMBER));
  const numbers = texts.map((each) => each.match(NUMBER) ?? []);
  const sameWords = words.every((each) => each.join("\u0000") === words[0]!.join("\u0000"));
  if (!sameWords || numbers[0]!.length === 0) return texts.join(" / ");
  const columns = numbers[0]!.map((_, position) => numbers.map((each) => each[position]!));
  const filled = columns.map((column) => format(median(column.map(parse)), column));
  const lead = columns[0]!;
  const leadValues = lead.map(parse);
  const spread = `[${format(Math.min(...leadValues), lead)}–${format(Math.max(...leadValues), lead)}]`;
  return `${words[0]!.map((word, i) => `${word}${filled[i] ?? ""}`).join("")} ${spread}`;
}

function parse(text: string): number {
  return Number(text.replace(/,/g, ""));
}

/** Written as the runs wrote it: their most decimals, and thousands groups if any run had them. */
function format(value: number, as: readonly string[]): string {
  const decimals = Math.max(...as.map((text) => text.split(".")[1]?.length ?? 0));
  const grouped = as.some((text) => text.includes(","));
  return value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: grouped });
}
