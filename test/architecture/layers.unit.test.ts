import { dirname, sep } from "node:path";
import { expect, test } from "vitest";
import { moduleImports, type ModuleImport } from "../support/module-imports";
import { sourceFiles } from "../support/source-files";

/**
 * The four layers of lambdas/, lowest first. Each may import its own layer and the ones below it that the
 * table allows; a runtime (composition root) wires everything, so it may import anything.
 */
const LAYERS = ["domain", "handlers", "adapters", "runtimes"] as const;
type Layer = (typeof LAYERS)[number];
const OUTSIDE = "outside lambdas/";

/**
 * What each layer's files may import. Handlers stay thin (parse, call the domain, shape the answer), so they
 * see the domain only. An adapter may use another adapter (the DynamoDB table adapter uses the one list of busy
 * AWS errors in adapters/aws/); the cycle test below keeps such uses one-way.
 */
const MAY_IMPORT: Record<Layer, readonly string[]> = {
  domain: ["domain"],
  handlers: ["domain", "handlers"],
  adapters: ["domain", "adapters"],
  runtimes: [...LAYERS, OUTSIDE],
};

/** The packages the domain may import: valibot (with its JSON Schema converter, which feeds the OpenAPI documents) and Node's built-ins. */
const DOMAIN_PACKAGES = /^(?:valibot|@valibot\/to-json-schema|node:.+)$/;

const layerOf = (path: string): string => {
  const [top, layer] = path.split(sep);
  return top === "lambdas" && (LAYERS as readonly string[]).includes(layer ?? "") ? layer! : OUTSIDE;
};

const imports: ModuleImport[] = moduleImports("lambdas");

test("every file of lambdas/ sits in one of the layers: domain/, handlers/, adapters/, runtimes/", () => {
  const files = sourceFiles("lambdas");
  expect(files.length).toBeGreaterThan(200);
  expect(files.filter((file) => layerOf(file) === OUTSIDE)).toEqual([]);
});

test("imports run downward only: domain imports only domain, valibot and node; handlers import domain; adapters import domain; runtimes import all", () => {
  const upward = imports
    .filter(({ external }) => !external)
    .filter(({ from, to }) => !(MAY_IMPORT[layerOf(from) as Layer] ?? []).includes(layerOf(to)))
    .map(({ from, to }) => `${from} -> ${to}`);
  const domainPackages = imports
    .filter(({ from, to, external }) => external && layerOf(from) === "domain" && !DOMAIN_PACKAGES.test(to))
    .map(({ from, to }) => `${from} -> ${to}`);
  expect(imports.filter(({ external }) => !external).length).toBeGreaterThan(500);
  expect(upward).toEqual([]);
  expect(domainPackages).toEqual([]);
});

/** The folders of lambdas/ that import one another round a loop: the strongly connected components of more than one folder (Tarjan). */
function folderCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, next);
    low.set(folder, next++);
    stack.push(folder);
    for (const to of edges.get(folder) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(folder, Math.min(low.get(folder)!, index.get(to)!));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
  return cycles;
}

test("no import cycle between folders of lambdas/: no two folders import each other, directly or round a loop", () => {
  const edges = new Map<string, Set<string>>();
  for (const { from, to, external } of imports) {
    if (external || !to.startsWith(`lambdas${sep}`) || dirname(from) === dirname(to)) continue;
    edges.set(dirname(from), (edges.get(dirname(from)) ?? new Set()).add(dirname(to)));
  }
  expect(edges.size).toBeGreaterThan(20);
  const cycles = folderCycles(edges).map((folders) => {
    const within = imports.filter(({ from, to }) => dirname(from) !== dirname(to) && folders.includes(dirname(from)) && folders.includes(dirname(to)));
    return `${folders.join(" <-> ")}: ${within.map(({ from, to }) => `${from} -> ${to}`).join("; ")}`;
  });
  expect(cycles).toEqual([]);
});
