import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, test } from "vitest";
import { buildSourceApiOpenApi } from "../../../lambdas/domain/preflight/source-api-openapi";
import { openApiDocument } from "../../../lambdas/handlers/http/openapi";

/**
 * Both OpenAPI documents, as the service serves them, linted with Redocly's `recommended` ruleset plus the rules that
 * make it say what Spectral's `spectral:oas` says (a description, a declared tag and a contact on every operation
 * and document): no error and no warning. And every `pattern` in them is written so that any JSON Schema regex
 * engine reads it as ECMAScript does (lambdas/domain/core/portable-patterns.ts).
 */
const DOCUMENTS = { onboarding: openApiDocument, "source API": buildSourceApiOpenApi } as const;

const config = await createConfig({
  extends: ["recommended"],
  rules: {
    "info-contact": "error",
    "operation-description": "error",
    "operation-tag-defined": "error",
    "tag-description": "error",
    "operation-singular-tag": "error",
    // Spectral's operation-tags: every operation has a tag (Redocly has it as an assertion, not a built-in rule).
    "rule/operation-has-a-tag": {
      subject: { type: "Operation", property: "tags" },
      assertions: { defined: true, nonEmpty: true },
      message: "Every operation has a tag.",
      severity: "error",
    },
  },
});

/** Every `pattern` keyword of a document, with where it is. */
function patternsOf(node: unknown, at = "#", found: { at: string; pattern: string }[] = []): { at: string; pattern: string }[] {
  if (node === null || typeof node !== "object") return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === "pattern" && typeof value === "string") found.push({ at, pattern: value });
    else patternsOf(value, `${at}/${key}`, found);
  }
  return found;
}

/**
 * What some JSON Schema regex engine reads otherwise than ECMAScript or not at all: Unicode-wide classes in Python
 * (`\d`, `\s`, `\w`, `\b`), property escapes, lookaround (none in Go's RE2), named groups and back-references,
 * inline flags, `\u` escapes (none in RE2).
 */
const NOT_PORTABLE = /\\[dDsSwWbBpPk]|\\u|\(\?<?[=!]|\(\?<|\(\?[a-z]/;

describe("the OpenAPI documents lint clean", () => {
  test.each(Object.entries(DOCUMENTS))("the %s document: Redocly's recommended ruleset, with Spectral's oas rules, finds no error and no warning", async (_name, build) => {
    const problems = await lintFromString({ source: JSON.stringify(build()), absoluteRef: "/openapi.json", config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ""}`)).toEqual([]);
  });

  test("the linter is on: a document without servers, contact and an operation's description and tag is refused, each by its rule", async () => {
    const document = openApiDocument() as { servers?: unknown; info: Record<string, unknown>; paths: Record<string, Record<string, Record<string, unknown>>> };
    delete document.servers;
    delete document.info["contact"];
    const operation = Object.values(document.paths)[0]!["post"]!;
    delete operation["description"];
    delete operation["tags"];
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "/openapi.json", config });
    expect([...new Set(problems.map((problem) => problem.ruleId))]).toEqual(expect.arrayContaining(["no-empty-servers", "info-contact", "operation-description", "rule/operation-has-a-tag"]));
  });

  test.each(Object.entries(DOCUMENTS))("every pattern of the %s document is portable: no Unicode-wide class, property escape, lookaround, named group or \\u escape", (_name, build) => {
    const patterns = patternsOf(build());
    expect(patterns.length).toBeGreaterThan(0);
    expect(patterns.filter(({ pattern }) => NOT_PORTABLE.test(pattern))).toEqual([]);
    // Each compiles as ECMAScript reads it with and without the u flag.
    for (const { pattern } of patterns) {
      expect(() => new RegExp(pattern)).not.toThrow();
      expect(() => new RegExp(pattern, "u")).not.toThrow();
    }
  });

  test("the portability check refuses each form that some engine reads otherwise", () => {
    for (const pattern of ["^\\P{Cc}+$", "^\\d+$", "^\\s*x$", "^(?<=a)b$", "^(?!x).$", "^(?<n>a)$", "^\\u00e9$", "^(?i)x$", "\\bword"]) {
      expect(NOT_PORTABLE.test(pattern), pattern).toBe(true);
    }
    for (const pattern of ["^[0-9]+$", "^[^\\x00-\\x1F\\x7F-\\x9F]+$", "^(off|[1-9]d)$", "^[oO][nN]$"]) expect(NOT_PORTABLE.test(pattern), pattern).toBe(false);
  });
});
