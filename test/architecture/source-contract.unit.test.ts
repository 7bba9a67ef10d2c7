import { join, sep } from "node:path";
import { expect, test } from "vitest";
import { moduleImports } from "../support/module-imports";

const DOMAIN = join("lambdas", "domain");
const folderOf = (path: string): string => path.split(sep).slice(0, 3).join(sep);
const imports = moduleImports(DOMAIN).filter(({ external }) => !external);

/** Every domain file `folders`' files reach, directly or through other modules. */
function reachedFrom(folders: readonly string[]): Set<string> {
  const starts = imports.filter(({ from }) => folders.includes(folderOf(from))).map(({ from }) => from);
  const reached = new Set<string>(starts);
  const queue = [...reached];
  while (queue.length > 0) {
    const file = queue.pop()!;
    for (const { from, to } of imports) if (from === file && !reached.has(to)) reached.add(to), queue.push(to);
  }
  return reached;
}

const SYNC = ["sync", "ingestion", "audits"].map((folder) => join(DOMAIN, folder));
const KIT = [join(DOMAIN, "preflight")];

test("the sync and the kit share the source contract, not each other: the sync reaches no module of the kit, the kit none of the sync", () => {
  expect([...reachedFrom(SYNC)].filter((file) => KIT.includes(folderOf(file)))).toEqual([]);
  expect([...reachedFrom(KIT)].filter((file) => SYNC.includes(folderOf(file)))).toEqual([]);
});

test("the source contract sits below both: lambdas/domain/source-contract/ imports only the domain's core and records", () => {
  const below = ["source-contract", "core", "records"].map((folder) => join(DOMAIN, folder));
  const above = imports.filter(({ from, to }) => folderOf(from) === join(DOMAIN, "source-contract") && !below.includes(folderOf(to)));
  expect(above.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
});
