import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const pages = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Relative link targets of a Markdown page (http(s) and in-page anchors are not files). */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.split("#")[0]!);
  return targets.filter((t) => t !== "" && !/^[a-z]+:/i.test(t));
}

describe("documentation", () => {
  it.each(pages)("every relative link in %s points at a file that exists", (page) => {
    const missing = relativeLinks(readFileSync(join(root, page), "utf8")).filter(
      (target) => !existsSync(resolve(dirname(join(root, page)), target)),
    );
    expect(missing).toEqual([]);
  });

  it("the README stays a front door: at most 400 lines", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(400);
  });
});
