import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";
import { watchPageProblems } from "./page-problems";

describe("owner's console: the overview, names, alerts and craft (Chromium against the local service)", { timeout: 60_000 }, () => {
  let harness: ConsoleHarness;
  let owner: Page;
  let problems: ReturnType<typeof watchPageProblems>;

  beforeAll(async () => {
    harness = await startConsoleHarness();
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it("no console error and no failed request: the page declares its icon, so nothing asks /favicon.ico", async () => {
    owner = await harness.browser.newPage();
    owner.setDefaultTimeout(20_000);
    problems = watchPageProblems(owner);
    const icons: string[] = [];
    owner.on("request", (request) => {
      if (request.resourceType() === "other" || /icon/.test(request.url())) icons.push(request.url());
    });
    await owner.goto(`${harness.url}/`);
    await owner.getByLabel("Workspace").fill("acme");
    await owner.getByLabel("Role").selectOption("owner");
    await owner.getByLabel("Workspace").press("Enter");
    await owner.getByText("No connections yet.").waitFor();
    expect(problems.take()).toEqual([]);
    expect(icons.filter((url) => url.endsWith("/favicon.ico"))).toEqual([]);
    // The icon the page declares is a hashed asset of this origin, and it loads.
    const href = await owner.locator('link[rel="icon"]').getAttribute("href", { timeout: 1000 });
    expect(href).toMatch(/^\/assets\/favicon-[\w-]+\.svg$/);
    expect((await fetch(`${harness.url}${href}`)).status).toBe(200);
  });

  it("axe-core finds no serious or critical violation on the sign-in and empty list screens", async () => {
    await expectAccessible(owner, "connections list (empty)");
    const fresh = await harness.browser.newPage();
    await fresh.goto(`${harness.url}/`);
    await fresh.getByLabel("Workspace").waitFor();
    await expectAccessible(fresh, "sign-in");
    await fresh.close();
  });
});
