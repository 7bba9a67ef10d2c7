/** Plain-text tables (Markdown pipe syntax, padded so they read well in a terminal too). */

export type Cell = string | number;

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** Lines printed under the table (method, caveats). */
  readonly notes?: readonly string[];
}

export function formatTable(table: Table): string {
  const text = table.rows.map((row) => row.map((cell) => String(cell)));
  const widths = table.columns.map((column, i) => Math.max(column.length, ...text.map((row) => (row[i] ?? "").length)));
  const numeric = table.columns.map((_, i) => table.rows.every((row) => typeof row[i] === "number" || /^(?:[-+]?[\d.,]+x?|-|n\/a)$/.test(String(row[i] ?? ""))));
  const line = (cells: readonly string[], align: boolean) =>
    `| ${cells.map((cell, i) => (align && numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(" | ")} |`;
  const out = [
    `### ${table.title}`,
    "",
    line(table.columns, false),
    `|${widths.map((width, i) => (numeric[i] ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2))).join("|")}|`,
    ...text.map((row) => line(row, true)),
  ];
  if (table.notes && table.notes.length > 0) out.push("", ...table.notes.map((note) => `- ${note}`));
  return `${out.join("\n")}\n`;
}

/** Fixed decimals, thousands separated. */
export function num(value: number, decimals = 0): string {
  if (!Number.isFinite(value)) return "n/a";
  return value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}
