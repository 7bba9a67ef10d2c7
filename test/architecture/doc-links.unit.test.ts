import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { API_PREFIX, ROUTES } from "../../lambdas/handlers/http/routes";

const root = resolve(import.meta.dirname, "../..");
const docPages = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".md"))
  .map((file) => `docs/${file.split("\\").join("/")}`);
const pages = ["README.md", ...docPages];

/** The page's text with fenced code blocks blanked: a `#` or `](` inside a code block is neither a heading nor a link. */
function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const match of withoutCodeBlocks(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1]!.replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Heading texts of a Markdown page, as written (for section names cited in code comments). */
function headingTexts(markdown: string): string[] {
  return [...withoutCodeBlocks(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => m[1]!.replace(/`/g, ""));
}

/** Relative link targets of a Markdown page (http(s), mailto and the like are not files). */
function relativeLinks(markdown: string): string[] {
  const targets = [...withoutCodeBlocks(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of `page`, or null when it resolves (file, and heading when it names one). */
function brokenLink(page: string, target: string): string | null {
  const [path, anchor] = target.split("#") as [string, string | undefined];
  const file = path === "" ? join(root, page) : resolve(dirname(join(root, page)), decodeURI(path));
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor === undefined) return null;
  if (!file.endsWith(".md") || statSync(file).isDirectory()) return `${target}: an anchor into a file that is not Markdown`;
  return headingSlugs(readFileSync(file, "utf8")).has(decodeURIComponent(anchor).toLowerCase())
    ? null
    : `${target}: no heading #${anchor} in ${relative(root, file)}`;
}

/** True when `target`, read from `page`'s folder, is a path inside the repository. */
function insideRepository(page: string, target: string): boolean {
  const path = relative(root, resolve(dirname(join(root, page)), decodeURI(target.split("#")[0]!)));
  return path !== ".." && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

/**
 * What a page names outside the repository: a relative link that climbs out of it, a code span with a path that climbs
 * (`../shared/...`) to anything but a file of the repository, or a code span naming a Markdown file that is not in the
 * repository (read from the page's folder or from the root). A clone has nothing outside the repository to read.
 */
function outsideReferences(page: string, text = readFileSync(join(root, page), "utf8")): string[] {
  const markdown = withoutCodeBlocks(text);
  const links = relativeLinks(markdown).filter((target) => !insideRepository(page, target));
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  const climbing = spans.filter(
    (span) => span.startsWith("../") && !(insideRepository(page, span) && existsSync(resolve(dirname(join(root, page)), span.split("#")[0]!))),
  );
  const missingPages = spans
    .filter((span) => /^[\w./-]+\.md$/.test(span) && !span.startsWith("../"))
    .filter((span) => !existsSync(resolve(dirname(join(root, page)), span)) && !existsSync(join(root, span)));
  return [...links, ...climbing, ...missingPages];
}

/** Source files whose comments may cite the docs. */
function sourceFiles(): string[] {
  const folders = ["lambdas", "lib", "bin", "statemachine", "test", "console/src"];
  return folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
      .map((file) => `${folder}/${file.split("\\").join("/")}`)
      .filter((file) => /\.(ts|tsx|mts|mjs|js|json)$/.test(file) && !file.includes("node_modules") && !file.includes(".artifacts")),
  );
}

/** A comment's text with its line breaks and leading `*` or `//` folded away, so a citation split over lines reads whole. */
function foldComments(text: string): string {
  return text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, " ");
}

const DOC_FILE = /(?<![\w/.-])(docs\/[\w./-]+?\.md)(#[\w-]+)?/g;
/** The README or a docs page, then a section's name in double, single or curly quotes (after an optional comma or 's). */
const SECTION_CITATION = /(README(?:\.md)?|docs\/[\w./-]+?\.md)(?:'s)?,?\s+(?:section\s+)?["'“]([^"'”]{2,80})["'”]/g;
/** The same in parentheses without quotes: the README or a docs page, a comma, then the section's name up to the closing one. */
const BARE_SECTION_CITATION = /\((?:see\s+)?(README(?:\.md)?|docs\/[\w./-]+?\.md),\s+([A-Za-z][^"'“”()]{1,80}?)\)/g;

/** Every citation of the docs in the source files that does not resolve, as `file: citation: why`. */
function brokenCitations(): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles()) {
    const text = foldComments(readFileSync(join(root, file), "utf8"));
    for (const match of text.matchAll(DOC_FILE)) {
      const problem = brokenLink("README.md", `${match[1]!}${match[2] ?? ""}`);
      if (problem !== null) problems.push(`${file}: ${problem}`);
    }
    const citations = [...text.matchAll(SECTION_CITATION), ...[...text.matchAll(BARE_SECTION_CITATION)].filter((m) => !m[2]!.includes(".md"))];
    for (const match of citations) {
      const doc = match[1]!.startsWith("README") ? "README.md" : match[1]!;
      const section = match[2]!.trim().toLowerCase();
      if (!existsSync(join(root, doc))) continue; // reported above as a missing file
      const headings = headingTexts(readFileSync(join(root, doc), "utf8")).map((heading) => heading.toLowerCase());
      if (!headings.some((heading) => heading.startsWith(section))) problems.push(`${file}: ${doc} has no section "${match[2]!}"`);
    }
  }
  return problems;
}

describe("documentation", () => {
  it.each(pages)("every relative link in %s resolves: the file exists and an anchor names one of its headings", (page) => {
    const broken = relativeLinks(readFileSync(join(root, page), "utf8"))
      .map((target) => brokenLink(page, target))
      .filter((problem) => problem !== null);
    expect(broken).toEqual([]);
  });

  it.each(pages)("no link or path in %s points outside the repository: the contract is the repository's own", (page) => {
    expect(outsideReferences(page)).toEqual([]);
  });

  it("the outside-reference check refuses each form a page could use to point outside the repository, and nothing inside it", () => {
    const page = "docs/source-api.md";
    expect(outsideReferences(page, "[the spec](../../shared/spec/crm-integration-spec.md)")).toEqual(["../../shared/spec/crm-integration-spec.md"]);
    expect(outsideReferences("README.md", "contract: `../shared/spec/crm-integration-spec.md`")).toEqual(["../shared/spec/crm-integration-spec.md"]);
    expect(outsideReferences(page, "the spec (`shared/spec/crm-integration-spec.md`)")).toEqual(["shared/spec/crm-integration-spec.md"]);
    expect(outsideReferences("docs/code-map.md", "1. `../shared/spec/crm-integration-spec.md`: the contract")).toEqual(["../shared/spec/crm-integration-spec.md"]);
    expect(outsideReferences(page, "[rules](rules.md), [the README](../README.md), `docs/rules.md`, `GET /api/v1/openapi.json`")).toEqual([]);
  });

  it("every reference in code to a README or docs section resolves: the file exists and the section is one of its headings", () => {
    expect(brokenCitations()).toEqual([]);
  });

  it("the README stays a front door: at most 250 lines", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
  });

  it("the routes table of docs/onboarding-api.md lists every owner route of ROUTES, and docs/analytics-api.md every route all roles read, and no other", () => {
    // Its rows start with the method and the path under API_PREFIX, a query string aside: `GET /crm/custom/connections/{id}/records/{entity}?limit=&cursor=`.
    const listed = (doc: string) =>
      [...readFileSync(join(root, doc), "utf8").matchAll(/^\| `(GET|POST|PATCH|PUT|DELETE) (\/[^`?]*)(?:\?[^`]*)?` \|/gm)].map((m) => `${m[1]} ${API_PREFIX}${m[2]}`);
    const keys = (access: "owner" | "member") => ROUTES.filter((route) => (route.access ?? "owner") === access).map((route) => route.routeKey).sort();
    expect(listed("docs/onboarding-api.md").sort()).toEqual(keys("owner"));
    expect(listed("docs/analytics-api.md").sort()).toEqual(keys("member"));
  });

  it.each(docPages)("no page under docs/ is over 350 lines: %s", (page) => {
    expect(readFileSync(join(root, page), "utf8").split("\n").length).toBeLessThanOrEqual(350);
  });
});
