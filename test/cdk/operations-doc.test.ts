import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { actionsOf, functionId, logicalId, resourcesOf, roleId, roleStatements, serviceFunctions, synthesize } from "./stack-fixture";

/**
 * docs/operations.md is the deploy guide: its outputs, its functions with their permissions and its teardown table
 * are read here and held against the template synthesized with the defaults (plus the test's JWT settings).
 */
const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
const { stack, template } = synthesize();
const resources = template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string; Properties: Record<string, any> }>;
const functions = serviceFunctions(stack);

/** The rows of the first table under `## heading`, as cells (header and separator left out). */
function tableUnder(heading: string): string[][] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/operations.md has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start + heading.length + 5).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const end = lines.findIndex((line, index) => index > first && !line.startsWith("|"));
  return lines
    .slice(first + 2, end)
    .map((line) => line.replace(/^\|\s*|\s*\|$/g, "").split(/\s+\|\s+/));
}

/** The code spans of a cell. */
const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
/** `30 s`, `15 min` as seconds. */
function seconds(cell: string): number {
  const match = /^(\d+) (s|min)$/.exec(cell);
  expect(match, `a timeout like "30 s" or "15 min": ${cell}`).not.toBeNull();
  return Number(match![1]) * (match![2] === "min" ? 60 : 1);
}

const tableArn = JSON.stringify({ "Fn::GetAtt": [logicalId(stack.table.table), "Arn"] });

/** A function role's actions, split as the table's columns split them. */
function rightsOf(name: string): { table: string[]; tokenKey: string[]; other: string[] } {
  const statements = roleStatements(template, roleId(functions[name]!)).filter(
    (statement) => !actionsOf(statement).every((action) => action.startsWith("logs:") || action.startsWith("xray:")),
  );
  const onTable = (statement: (typeof statements)[number]) => resourcesOf(statement).every((resource) => JSON.stringify(resource) === tableArn);
  const table = statements.filter(onTable).flatMap(actionsOf);
  const rest = statements.filter((statement) => !onTable(statement)).flatMap(actionsOf);
  return {
    table: table.filter((action) => action.startsWith("dynamodb:")).sort(),
    tokenKey: rest.filter((action) => action.startsWith("kms:")).sort(),
    other: rest.filter((action) => !action.startsWith("kms:")).sort(),
  };
}

describe("docs/operations.md against the synthesized template", () => {
  test("the stack outputs table lists every output of the template, and no other", () => {
    const listed = tableUnder("Stack outputs").map(([name]) => spans(name!)[0]);
    expect(listed.sort()).toEqual(Object.keys(template.toJSON().Outputs as object).sort());
  });

  test("the functions table lists every function of the stack, and no other", () => {
    const listed = tableUnder("Functions and their permissions").map(([name]) => spans(name!)[0]);
    expect(listed.sort()).toEqual(Object.keys(functions).sort());
  });

  test("each function's row states its timeout and reserved concurrency as the template sets them", () => {
    for (const [name, , timeout, reserved] of tableUnder("Functions and their permissions")) {
      const fn = spans(name!)[0]!;
      const properties = resources[functionId(functions[fn]!)]!.Properties;
      expect(seconds(timeout!), `${fn}: timeout`).toBe(properties.Timeout);
      const documented = reserved === "none" ? undefined : Number(/^(\d+)/.exec(reserved!)?.[1]);
      expect(documented, `${fn}: reserved concurrency`).toBe(properties.ReservedConcurrentExecutions);
    }
  });

  test("each function's row states exactly its role's rights: table actions on the table, token-key actions, every other action", () => {
    for (const [name, , , , table, tokenKey, other] of tableUnder("Functions and their permissions")) {
      const fn = spans(name!)[0]!;
      const rights = rightsOf(fn);
      expect(spans(table!).map((action) => `dynamodb:${action}`).sort(), `${fn}: table actions`).toEqual(rights.table);
      expect(spans(tokenKey!).sort(), `${fn}: token key`).toEqual(rights.tokenKey);
      const otherActions = spans(other!).filter((span) => /^[a-z0-9-]+:[A-Za-z*]+$/.test(span));
      expect(otherActions.sort(), `${fn}: other rights`).toEqual(rights.other);
    }
  });

  test("the teardown table names every kind of resource cdk destroy keeps (removal policy Retain), with its count, and no other", () => {
    const kept = new Map<string, number>();
    for (const resource of Object.values(resources)) {
      if (resource.DeletionPolicy === "Retain") kept.set(resource.Type, (kept.get(resource.Type) ?? 0) + 1);
    }
    const listed = new Map(tableUnder("Teardown").map(([type, count]) => [spans(type!)[0]!, Number(count)]));
    expect(listed).toEqual(kept);
  });
});
