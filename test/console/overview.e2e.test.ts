import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedConnection } from "../builders/stored-connections";
import { contactRecord, leadRecord, pipelineRecord, taskRecord, userRecord } from "../builders/source-records";
import { crmSource, type CrmData } from "../support/crm-source";
import { runSettled } from "../support/run-settled";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { shot } from "./screenshots";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";
import { tabTo } from "./keyboard";
import { watchPageProblems } from "./page-problems";
import { LOCAL_TIME_FORMAT } from "../../console/src/local-time-format";

const TOKEN = "overview-source-token-5d2a";
const WORKSPACE = "acme";
const CLEAN: CrmData = { pipelines: [pipelineRecord()], users: [userRecord()], contacts: [contactRecord()], leads: [leadRecord()], tasks: [], calls: [], events: [] };
/** One silent rule: a task linked to nothing (task.unlinked), in the first successful run, so it is new. */
const DIRTY: CrmData = { ...CLEAN, tasks: [taskRecord({ id: "task-orphan", lead_id: null, contact_id: null })] };
/** The owner's zone in the time step: no daylight saving, a half-hour offset, so a wrong conversion cannot pass by luck. */
const OWNER_ZONE = "Asia/Kolkata";


describe("owner's console: the overview, names, alerts and craft (Chromium against the local service)", { timeout: 60_000 }, () => {
  let harness: ConsoleHarness;
  let clean: SourceServer;
  let dirty: SourceServer;
  let owner: Page;
  let problems: ReturnType<typeof watchPageProblems>;
  const ids: Record<"zeta" | "alpha" | "failing" | "old", string> = { zeta: "", alpha: "", failing: "", old: "" };

  /** The onboarding API as the owner, straight from the test (set-up only: the page is what is tested): the answer's body. */
  let ownerCall: Awaited<ReturnType<ConsoleHarness["ownerApi"]>>;
  const callApi = async (method: string, path: string, body?: unknown) => (await ownerCall(method, path, body)).body;
  const syncAndSettle = async (id: string) => {
    const run = await callApi("POST", `/connections/${id}/syncs`);
    return runSettled(harness.service.sync.engine, harness.service.sync.runs, id, run["id"] as string);
  };
  const cardTitles = () => owner.getByRole("list", { name: "Connections" }).locator("li.card h2").allTextContents();

  beforeAll(async () => {
    harness = await startConsoleHarness();
    clean = await startSourceServer(crmSource(() => CLEAN, { token: TOKEN }));
    dirty = await startSourceServer(crmSource(() => DIRTY, { token: TOKEN }));
    ownerCall = await harness.ownerApi(WORKSPACE);
  }, 120_000);

  afterAll(async () => {
    await clean?.close();
    await dirty?.close();
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
    await owner.getByLabel("Workspace").fill(WORKSPACE);
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

  it("names: the create form takes a name, the page shows it in place of the URL (URL as secondary text), and emptying it shows the URL again", async () => {
    await owner.getByRole("link", { name: "New connection" }).click();
    await owner.getByLabel("Name").fill("Zeta CRM");
    await owner.getByLabel("Base URL").fill(dirty.baseUrl);
    await owner.getByLabel("API token").fill(TOKEN);
    await owner.getByLabel("Requests per second").fill("1000");
    await owner.getByLabel("Start date").fill("2020-01-01");
    await owner.getByRole("button", { name: "Save connection" }).click();
    await owner.getByRole("heading", { name: "Zeta CRM", level: 1 }).waitFor();
    expect(await owner.locator("main h1 + p.secondary").textContent()).toBe(dirty.baseUrl);
    ids.zeta = decodeURIComponent(owner.url().split("/").pop()!);
    await owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Settings" }).click();

    // The API's own rule for a name over 100 characters, under the field (the input's maxlength stops typing, not a paste).
    const settings = owner.getByRole("form", { name: "Settings" });
    await settings.getByLabel("Name").evaluate((input: { removeAttribute(name: string): void; value: string }) => {
      input.removeAttribute("maxlength");
      input.value = "n".repeat(101);
    });
    await settings.getByRole("button", { name: "Save settings" }).click();
    await settings.locator(".field-error", { hasText: "Name must be at most 100 characters" }).waitFor();
    problems.take();
    // Emptied: the name is removed (PATCH name: null) and the heading is the URL again; then named again.
    await settings.getByLabel("Name").fill("");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await owner.getByRole("heading", { name: dirty.baseUrl, level: 1 }).waitFor();
    expect(await owner.locator("main h1 + p.secondary").isHidden()).toBe(true);
    expect((await callApi("GET", `/connections/${ids.zeta}`))["name"]).toBeNull();
    await settings.getByLabel("Name").fill("Zeta CRM");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await owner.getByRole("heading", { name: "Zeta CRM", level: 1 }).waitFor();
    expect(problems.take()).toEqual([]);
  });

  it("the overview: health, freshness, last run, open findings and next run per connection; stale and failing first, then by name", async () => {
    ids.alpha = (await callApi("POST", "/connections", { name: "alpha", base_url: clean.baseUrl, token: TOKEN, rate_limit: 1000 }))["id"];
    // No name: it shows, and sorts, by its URL. Its token is not the source's, so its run fails.
    ids.failing = (await callApi("POST", "/connections", { base_url: clean.baseUrl, token: "not-the-source-token", rate_limit: 1000 }))["id"];
    // Created long ago and never synced: stale (a never-synced entity counts from created_at; SCHEDULE 1h makes 2 hours stale).
    ids.old = "conn-created-long-ago";
    await harness.service.sync.connections.put(
      storedConnection(ids.old, { business_account_id: WORKSPACE, name: "Old CRM", base_url: clean.baseUrl, created_at: "2020-01-01T00:00:00.000Z" }),
    );
    const zetaRun = await syncAndSettle(ids.zeta);
    expect(zetaRun.status).toBe("succeeded");
    expect((await syncAndSettle(ids.alpha)).status).toBe("succeeded");
    expect((await syncAndSettle(ids.failing)).status).toBe("failed");

    // One request for the whole dashboard: the header's alerts and the list share it, and no card asks for more.
    const apiRequests: string[] = [];
    owner.on("request", (request) => {
      if (request.url().includes("/api/")) apiRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await owner.getByRole("link", { name: "CRM connections" }).click();
    await owner.getByRole("status").getByText("4 connections. 2 need attention: listed first.").waitFor();
    expect(apiRequests).toEqual(["GET /api/v1/crm/custom/connections"]);
    owner.removeAllListeners("request");
    expect(await cardTitles()).toEqual([clean.baseUrl, "Old CRM", "alpha", "Zeta CRM"]);

    const card = (id: string) => owner.locator(`li.card[data-connection="${id}"]`);
    const zeta = card(ids.zeta);
    expect(await zeta.locator("p.secondary").textContent()).toBe(dirty.baseUrl);
    expect(await zeta.locator('[data-test="health"]').textContent()).toBe("healthy");
    expect(await zeta.locator('[data-test="findings"]').textContent()).toBe("1 open finding (0 errors, 1 new) · 1 record");
    expect(await zeta.locator('[data-test="findings"] a').getAttribute("href")).toBe(`#/connections/${ids.zeta}/quality`);
    const zetaRecords = zetaRun.entities.reduce((sum, row) => sum + row.records, 0);
    expect(await zeta.locator('[data-test="last-run"]').textContent()).toMatch(new RegExp(` · succeeded · \\d+ (ms|s) · ${zetaRecords} records$`));
    expect(await zeta.locator('[data-test="next-run"]').textContent()).toBe("within 1h (every 1h)");
    // Freshness is the oldest entity's data_as_of, from the connection's freshness.
    const freshness = (await callApi("GET", `/connections/${ids.zeta}`))["freshness"] as Record<string, { data_as_of: string | null }>;
    const oldest = Object.values(freshness).map((entity) => entity.data_as_of).filter((at) => at !== null).sort()[0];
    expect(await zeta.locator('[data-test="freshness"] time').getAttribute("datetime")).toBe(oldest);

    const failing = card(ids.failing);
    expect(await failing.locator("h2").textContent()).toBe(clean.baseUrl);
    expect(await failing.locator("p.secondary").count()).toBe(0);
    // The 401 failed every entity: the required ones are named, in owner words.
    expect(await failing.locator('[data-test="health"]').textContent()).toBe("failing · Pipelines, users, contacts and leads failed in the last run");
    expect(await failing.locator('[data-test="last-run"]').textContent()).toContain(" · failed · ");
    expect(await failing.locator('[data-test="last-run"]').textContent()).toContain("failed: pipelines");
    expect(await failing.locator('[data-test="findings"]').textContent()).toBe("no successful run yet");
    const old = card(ids.old);
    expect(await old.locator('[data-test="health"]').textContent()).toBe("never synced stale");
    expect(await old.locator('[data-test="freshness"]').textContent()).toBe("no data yet · older than 2 hours");
    expect(await old.locator('[data-test="last-run"]').textContent()).toBe("never");
    expect(await card(ids.alpha).locator('[data-test="findings"]').textContent()).toBe("none open");
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "overview");
    await shot(owner, "overview");
  });

  it("alerts: stale connections, failed runs and new findings in the header, the notifications behind them, by keyboard alone", async () => {
    const button = owner.getByRole("button", { name: /^Alerts/ });
    expect(await button.textContent()).toBe("Alerts: 1 stale · 1 failed run · 1 new finding");
    expect(await button.getAttribute("aria-expanded")).toBe("false");
    // Keyboard only: from the brand link, Tab passes the role's links (Connections, Team) and reaches the button; Enter opens the panel.
    await owner.getByRole("link", { name: "CRM connections" }).focus();
    await tabTo(owner, button, { limit: 3 });
    expect(await owner.evaluate<boolean>("document.activeElement?.classList.contains('alerts-button') === true")).toBe(true);
    const signOutBefore = await owner.getByRole("button", { name: "Sign out" }).boundingBox();
    const headerBefore = await owner.locator("header.top").boundingBox();
    await owner.keyboard.press("Enter");
    expect(await button.getAttribute("aria-expanded")).toBe("true");
    const panel = owner.getByRole("region", { name: "Alerts and notifications" });
    await panel.waitFor();
    // The alerts panel opens below the header without moving it: the header keeps its height, Sign out its place.
    expect(await owner.locator("header.top").boundingBox()).toEqual(headerBefore);
    expect(await owner.getByRole("button", { name: "Sign out" }).boundingBox()).toEqual(signOutBefore);
    expect((await panel.boundingBox())!.y).toBeGreaterThanOrEqual(headerBefore!.y + headerBefore!.height);
    const concerns = panel.getByRole("list", { name: "Connections that need attention" });
    // In the dashboard's order: the failing one (no name: its URL), the stale one, then the one with a new finding.
    expect(await concerns.locator("li").evaluateAll((items) => items.map((item) => `${item.getAttribute("data-alert")} ${item.querySelector("a")?.textContent}`))).toEqual([
      `failed ${clean.baseUrl}`,
      "stale Old CRM",
      "findings Zeta CRM",
    ]);
    // The notifications list (GET /notifications), read when the panel opened: the three runs' ends, newest first.
    const notifications = panel.getByRole("list", { name: "Notifications" });
    await notifications.locator("li").nth(2).waitFor();
    expect(await notifications.locator("li").evaluateAll((items) => items.map((item) => item.textContent?.replace(/^.*? · /, "")))).toEqual([
      `${clean.baseUrl}: sync failed`,
      "alpha: sync succeeded",
      "Zeta CRM: sync succeeded",
    ]);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "alerts panel open");
    await shot(owner, "alerts");
    // Escape closes it and gives focus back to the button; Enter again, Tab into the panel, Enter follows the failed run's link.
    await owner.keyboard.press("Tab");
    await owner.keyboard.press("Escape");
    expect(await panel.isHidden()).toBe(true);
    expect(await owner.evaluate<boolean>("document.activeElement?.classList.contains('alerts-button') === true")).toBe(true);
    await owner.keyboard.press("Enter");
    await concerns.locator('li[data-alert="failed"] a').focus();
    await owner.keyboard.press("Enter");
    await owner.locator('.run-status[data-status="failed"]').waitFor();
    expect(owner.url()).toContain(`#/connections/${ids.failing}/runs/`);
  });

  it("times show in the owner's local time, with UTC on hover", async () => {
    const cdp = await owner.context().newCDPSession(owner);
    await cdp.send("Emulation.setTimezoneOverride", { timezoneId: OWNER_ZONE });
    // The language is the harness's en-US already (a second locale override is refused): only the zone changes here.
    await owner.getByRole("link", { name: "CRM connections" }).click();
    await owner.locator(`li.card[data-connection="${ids.zeta}"] [data-test="last-run"] time`).waitFor();
    const times = await owner.locator("main time").evaluateAll((elements) =>
      elements.map((element) => ({ datetime: element.getAttribute("datetime")!, title: element.getAttribute("title"), text: element.textContent })),
    );
    expect(times.length).toBeGreaterThanOrEqual(5);
    const local = new Intl.DateTimeFormat("en-US", { ...LOCAL_TIME_FORMAT, timeZone: OWNER_ZONE });
    for (const time of times) {
      expect(time.title).toBe(time.datetime.replace("T", " ").replace(/\.\d+Z$/, " UTC"));
      expect(time.text).toBe(local.format(new Date(time.datetime)));
      expect(time.text).toContain("GMT+5:30");
    }
    // Back to the machine's zone (UTC here) for the screenshots that follow.
    await cdp.send("Emulation.setTimezoneOverride", { timezoneId: "" });
    await cdp.detach();
  });

  it("every other screen, reached by keyboard alone: no console error, no failed request, no serious axe-core violation", async () => {
    await owner.getByRole("link", { name: "CRM connections" }).click();
    // Enter on a focused link is how a keyboard follows it; each screen is then checked as it stands.
    const follow = async (link: ReturnType<Page["locator"]>) => {
      await link.focus();
      await owner.keyboard.press("Enter");
    };
    const sections = owner.getByRole("navigation", { name: "Connection sections" });
    await follow(owner.locator(`li.card[data-connection="${ids.zeta}"] h2 a`));
    await owner.locator('[data-test="last-run"] a').waitFor();
    await expectAccessible(owner, "connection: status");
    await follow(sections.getByRole("link", { name: "Runs" }));
    await owner.locator('[data-test="run-history"]').getByRole("link").first().waitFor();
    await expectAccessible(owner, "connection: runs");
    await follow(owner.locator('[data-test="run-history"]').getByRole("link").first());
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    await expectAccessible(owner, "run");
    await follow(sections.getByRole("link", { name: "Data" }));
    await follow(owner.locator('tr[data-collection="leads"]').getByRole("link", { name: "Leads" }));
    await owner.getByText("Page 1: 1 to 1 of 1, newest first.").waitFor();
    await expectAccessible(owner, "records");
    await owner.goBack();
    await follow(owner.getByRole("link", { name: "Funnel" }));
    await owner.getByRole("status").getByText(/^Counted at the end of the last run/).waitFor();
    await expectAccessible(owner, "funnel");
    await follow(sections.getByRole("link", { name: "Settings" }));
    await owner.getByRole("form", { name: "Settings" }).waitFor();
    await expectAccessible(owner, "connection: settings");
    await follow(owner.getByRole("link", { name: "CRM connections" }));
    await follow(owner.getByRole("link", { name: "New connection" }));
    await owner.getByRole("heading", { name: "New connection", level: 1 }).waitFor();
    await expectAccessible(owner, "new connection");
    expect(problems.take()).toEqual([]);
  });

  it("works 360 px wide: the overview, the alerts panel, a connection, the new-connection form and sign-in scroll no sideways, and pass axe-core", async () => {
    await owner.setViewportSize({ width: 360, height: 780 });
    await owner.getByRole("link", { name: "CRM connections" }).click();
    await owner.locator(`li.card[data-connection="${ids.zeta}"]`).waitFor();
    await owner.getByRole("button", { name: /^Alerts/ }).click();
    await owner.getByRole("list", { name: "Notifications" }).locator("li").first().waitFor();
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await shot(owner, "connections-360px");
    await owner.locator(`li.card[data-connection="${ids.zeta}"] h2 a`).click();
    await owner.getByRole("heading", { name: "Zeta CRM", level: 1 }).waitFor();
    await owner.locator('[data-test="last-run"] a').waitFor();
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await expectAccessible(owner, "connection at 360 px");
    await owner.getByRole("link", { name: "CRM connections" }).click();
    await owner.getByRole("link", { name: "New connection" }).click();
    await owner.getByRole("heading", { name: "New connection", level: 1 }).waitFor();
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await expectAccessible(owner, "new connection at 360 px");
    expect(problems.take()).toEqual([]);
    await owner.setViewportSize({ width: 1280, height: 800 });
    // Sign-in needs a page without a session: a new tab (the session lives in the owner's page's memory).
    const signIn = await harness.browser.newPage();
    const signInProblems = watchPageProblems(signIn);
    await signIn.setViewportSize({ width: 360, height: 780 });
    await signIn.goto(`${harness.url}/`);
    await signIn.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await signIn.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await expectAccessible(signIn, "sign-in at 360 px");
    expect(signInProblems.take()).toEqual([]);
    await signIn.close();
  });
});
