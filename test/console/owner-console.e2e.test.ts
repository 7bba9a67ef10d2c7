import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  taskRecord,
  userRecord,
} from "../builders/source-records";
import { RULES_BY_ID } from "../../lambdas/domain/source-contract/rules/catalog";
import { crmSource, type CrmData } from "../support/crm-source";
import { startPreflightSource } from "../support/preflight-source";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { shot } from "./screenshots";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";
import { tabTo, typeOver } from "./keyboard";
import { watchPageProblems } from "./page-problems";

const FIRST_TOKEN = "first-source-token-3f9a";
const ROTATED_TOKEN = "rotated-source-token-7c1e";
const LEADS = 130; // two pages of leads

const data: CrmData = {
  pipelines: [pipelineRecord(), pipelineRecord({ id: "pipeline-2", name: "Partners", sort: 2, stages: [] })],
  users: [userRecord(), userRecord({ id: "user-2", name: "Ben Ortiz", email: "ben@example.com" })],
  contacts: [contactRecord()],
  // Every tenth lead won (price 1000), every tenth lost (two reasons): the funnel step checks these numbers.
  leads: Array.from({ length: LEADS }, (_, i) =>
    leadRecord({
      id: `lead-${i + 1}`,
      name: `Deal ${i + 1}`,
      updated_at: `2026-02-03T08:${String(i % 60).padStart(2, "0")}:00Z`,
      ...(i % 10 === 1 ? { stage_id: "stage-won", price: 1000 } : {}),
      ...(i % 10 === 2 ? { stage_id: "stage-lost", loss_reason: i % 20 === 2 ? "too expensive" : "no budget" } : {}),
    }),
  ),
  tasks: [taskRecord({ due_at: "2000-01-01T00:00:00Z" })],
  calls: [callRecord()],
  events: [eventRecord()],
};

/** Everything the page's DOM holds, input values included (they are not in the serialized HTML). */
async function domText(page: Page): Promise<string> {
  const html = await page.content();
  const values = await page.evaluate<string>(`[...document.querySelectorAll("input, select, textarea")].map((field) => field.value).join("\\n")`);
  return `${html}\n${values}`;
}


/**
 * A step that provokes an error answer on purpose: what it took must be that answer (the response and Chromium's
 * "Failed to load resource" line for it), at least once, and nothing else.
 */
function expectOnlyAnswered(taken: string[], status: number, method: string): void {
  expect(taken.some((problem) => problem.startsWith(`${status}: ${method} `)), taken.join("\n")).toBe(true);
  expect(taken.filter((problem) => !problem.startsWith(`${status}: ${method} `) && !problem.includes(`status of ${status} `))).toEqual([]);
}

describe("owner's console, end to end (Chromium against the local service and a loopback source)", { timeout: 60_000 }, () => {
  let harness: ConsoleHarness;
  let source: SourceServer;
  let acceptedToken = FIRST_TOKEN;
  // An explicit gate: the source holds every /leads request until the test has seen the run live.
  let releaseLeads: () => void = () => undefined;
  let leadsGate: Promise<void> = Promise.resolve();
  // One 429 (Retry-After 2) on /contacts when armed; the retry is then held until the test has seen the wait on the page.
  let throttleContactsOnce = false;
  let releaseContactsRetry: () => void = () => undefined;
  let contactsRetryGate: Promise<void> = Promise.resolve();
  let owner: Page;
  // Every console error and failed request on the owner's page; each step takes them and expects none it did not provoke.
  let problems: ReturnType<typeof watchPageProblems>;
  let connectionUrl = "";
  let throttledRunUrl = "";

  beforeAll(async () => {
    harness = await startConsoleHarness();
    source = await startSourceServer(async (request) => {
      if (request.path === "/contacts" && throttleContactsOnce) {
        throttleContactsOnce = false;
        return { status: 429, headers: { "retry-after": "2" }, json: { error: "slow down" } };
      }
      if (request.path === "/contacts") await contactsRetryGate;
      if (request.path === "/leads") await leadsGate;
      return crmSource(() => data, { token: acceptedToken })(request);
    });
  }, 120_000);

  afterAll(async () => {
    releaseLeads();
    releaseContactsRetry();
    await source?.close();
    await harness?.close();
  });

  it("serves the console at / with a CSP that allows no inline script", async () => {
    const response = await fetch(`${harness.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await response.text();
    // Every script is a file of this origin: none inline.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /<script[^>]*src="([^"]+)"/.exec(html)?.[1] ?? "";
    const asset = await fetch(`${harness.url}${script}`);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  });

  it("an owner signs in through the development sign-in form", async () => {
    owner = await harness.browser.newPage();
    // Fail a step well inside the test's own timeout, so one broken step names itself.
    owner.setDefaultTimeout(20_000);
    problems = watchPageProblems(owner);
    await owner.goto(`${harness.url}/`);
    await owner.getByLabel("Workspace").fill("acme");
    await shot(owner, "sign-in");
    await owner.getByLabel("Role").selectOption("owner");
    // Keyboard only: Enter submits the form.
    await owner.getByLabel("Workspace").press("Enter");
    await owner.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await owner.getByText("No connections yet.").waitFor();
    // The session token lives in memory only.
    expect(await owner.evaluate<number>("localStorage.length + sessionStorage.length")).toBe(0);
    expect(await owner.evaluate<string>("document.cookie")).toBe("");
    expect(problems.take()).toEqual([]);
  });

  it("by keyboard alone, the create form shows the API's own 422 rule under the field, then creates the connection", async () => {
    // Tab from the list's heading to the link, Enter; then Tab from field to field, typing.
    await tabTo(owner, owner.getByRole("link", { name: "New connection" }));
    await owner.keyboard.press("Enter");
    await owner.locator("main h1:focus", { hasText: "New connection" }).waitFor();
    await tabTo(owner, owner.getByLabel("Base URL"));
    await owner.keyboard.type(source.baseUrl);
    await tabTo(owner, owner.getByLabel("API token"));
    await owner.keyboard.type(FIRST_TOKEN);
    await tabTo(owner, owner.getByLabel("Requests per second"));
    await typeOver(owner, "0");
    await tabTo(owner, owner.getByLabel("Start date"));
    // A date field takes its parts as typed digits, in the browser's order (month, day, year for en-US).
    await owner.keyboard.type("01012020");
    expect(await owner.getByLabel("Start date").inputValue()).toBe("2020-01-01");
    await tabTo(owner, owner.getByRole("button", { name: "Save connection" }));
    await owner.keyboard.press("Enter");
    // The API's rule in words, under the field and tied to it for screen readers.
    const rateError = owner.locator(".field-error", { hasText: "Requests per second must be a whole number from 1 to 1000" });
    await rateError.waitFor();
    const rate = owner.getByLabel("Requests per second");
    expect(await rate.getAttribute("aria-invalid")).toBe("true");
    expect((await rate.getAttribute("aria-describedby"))?.split(" ")).toContain(await rateError.getAttribute("id"));
    expectOnlyAnswered(problems.take(), 422, "POST");
    await expectAccessible(owner, "create form with a 422 under its field");

    // The 422 put focus on the field it names: type over it, Enter submits the form.
    await owner.locator('input[name="rate_limit"]:focus').waitFor();
    await typeOver(owner, "200");
    await owner.keyboard.press("Enter");
    await owner.getByRole("heading", { name: source.baseUrl, level: 1 }).waitFor();
    connectionUrl = owner.url();
    // After a navigation, keyboard and screen-reader users start at the new page's heading.
    await owner.locator("main h1:focus", { hasText: source.baseUrl }).waitFor();
    expect(await domText(owner)).not.toContain(FIRST_TOKEN);
    // The runtime's SCHEDULE reaches the page through the API's `schedule`.
    expect(await owner.locator('[data-test="next-run"]').textContent()).toBe("within 1h (every 1h)");
    expect(problems.take()).toEqual([]);
  });

  it("focus stays on the control a keyboard user moved to while the page was still loading", async () => {
    // Hold the run history (what the Status section waits on) at a gate, move to Sync now, then let the page finish.
    let releaseHistory: () => void = () => undefined;
    const historyGate = new Promise<void>((resolve) => (releaseHistory = resolve));
    const historyRequested = new Promise<void>((resolve) =>
      void owner.route(/\/syncs$/, async (route) => {
        resolve();
        await historyGate;
        await route.continue();
      }),
    );
    // Leave and come back (a hash navigation: a reload would end the in-memory session).
    await owner.getByRole("link", { name: "All connections" }).click();
    await owner.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await owner.goto(connectionUrl);
    await owner.getByRole("heading", { name: source.baseUrl, level: 1 }).waitFor();
    await historyRequested;
    await owner.getByRole("button", { name: "Sync now" }).focus();
    releaseHistory();
    await owner.locator('[data-test="last-run"]', { hasText: "none yet" }).waitFor();
    await owner.unroute(/\/syncs$/);
    expect(await owner.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Sync now");
  });

  it("by keyboard alone, the test call's result shows reachable, authenticated, detail and pipelines found", async () => {
    // Keyboard only: Tab to the Settings section's link, Enter, then Tab to the button, Enter.
    await tabTo(owner, owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Settings" }));
    await owner.keyboard.press("Enter");
    await owner.locator("main h1:focus").waitFor();
    await tabTo(owner, owner.getByRole("button", { name: "Test connection" }));
    await owner.keyboard.press("Enter");
    // Wait for the result, whatever it says, so that a failed call fails here with its detail, not with a timeout.
    await owner.locator('.test-result [data-test="pipelines-found"], .test-result p.bad').first().waitFor();
    const result = await owner.locator(".test-result").textContent();
    expect(await owner.locator('[data-test="pipelines-found"]').textContent(), `the test call's result: ${result}`).toBe("2");
    expect(await owner.locator('[data-test="reachable"]').textContent()).toBe("yes");
    expect(await owner.locator('[data-test="authenticated"]').textContent()).toBe("yes");
    expect(await owner.locator('[data-test="detail"]').textContent()).not.toBe("");
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "connection with its test result");
    await shot(owner, "connection-tested");
  });

  it("a sync started by keyboard alone is watched live: each entity's status, pages and records while it runs, then its outcome", async () => {
    leadsGate = new Promise((resolve) => (releaseLeads = resolve));
    throttleContactsOnce = true;
    contactsRetryGate = new Promise((resolve) => (releaseContactsRetry = resolve));
    await tabTo(owner, owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Status" }), { backwards: true });
    await owner.keyboard.press("Enter");
    await tabTo(owner, owner.getByRole("button", { name: "Sync now" }));
    await owner.keyboard.press("Enter");
    await owner.getByRole("heading", { name: "Sync run", level: 1 }).waitFor();
    throttledRunUrl = owner.url();
    // A 429 wait shows while it happens: contacts is still running, its retry held by the source.
    const waits = owner.getByRole("list", { name: "Retries and waits" });
    await waits
      .getByText("Contacts, page 1: your CRM asked the sync to slow down (for 2 s); waiting 2 s, then retry 1 of 5", { exact: true })
      .waitFor();
    expect(await owner.locator('tr[data-entity="contacts"] .badge').textContent()).toBe("running");
    expect(await owner.locator('tr[data-entity="contacts"] td').nth(3).textContent()).toBe("1");
    expect(await waits.locator("li").first().textContent()).toContain("slow down");
    releaseContactsRetry();
    // Live: contacts are done and leads are under way while the source holds them.
    await owner.locator('tr[data-entity="leads"] .badge', { hasText: "running" }).waitFor();
    await owner.locator('tr[data-entity="contacts"] .badge', { hasText: "succeeded" }).waitFor();
    expect(await owner.locator(".run-status").getAttribute("data-status")).toBe("running");
    await expectAccessible(owner, "a live run with a 429 wait");
    await shot(owner, "sync-running");

    releaseLeads();
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    const leadsRow = owner.locator('tr[data-entity="leads"]');
    expect(await leadsRow.locator("td").nth(1).textContent()).toBe("2");
    expect(await leadsRow.locator("td").nth(2).textContent()).toBe(String(LEADS));
    // The wait stays in the finished run's record; it was the run's only one.
    expect(await waits.locator("li").count()).toBe(1);
    expect(problems.take()).toEqual([]);
    await shot(owner, "sync-finished");
  });

  it("the run history lists the run with its counts, and its details open from it", async () => {
    await owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Runs" }).click();
    const history = owner.locator('[data-test="run-history"]');
    await history.getByText("succeeded").waitFor();
    expect(await history.locator("tbody tr").first().locator("td").nth(2).textContent()).toBe(String(2 + 3 + 2 + 1 + LEADS + 1 + 1 + 1));
    await history.getByRole("link").first().click();
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    await owner.goto(connectionUrl);
    await owner.getByRole("heading", { name: source.baseUrl, level: 1 }).waitFor();
  });

  it("by keyboard alone, the settings form saves a new rate (start date kept) and shows the API's 422 rule under the field", async () => {
    await owner.goto(`${connectionUrl}/settings`);
    const settings = owner.getByRole("form", { name: "Settings" });
    await tabTo(owner, settings.getByLabel("Requests per second"));
    await typeOver(owner, "1001");
    await owner.keyboard.press("Enter");
    await settings.locator(".field-error", { hasText: "Requests per second must be a whole number from 1 to 1000" }).waitFor();
    expectOnlyAnswered(problems.take(), 422, "PATCH");
    await expectAccessible(owner, "settings with a 422 under its field");
    // Focus is on the field the 422 named; type over it, then Tab to the button and press Space.
    await settings.locator('input[name="rate_limit"]:focus').waitFor();
    await typeOver(owner, "150");
    await tabTo(owner, settings.getByRole("button", { name: "Save settings" }));
    await owner.keyboard.press("Space");
    await settings.getByText("Saved.").waitFor();
    const stored = await harness.service.sync.connections.listAll();
    expect(stored.map((connection) => [connection.rate_limit, connection.sync_since])).toEqual([[150, "2020-01-01T00:00:00.000Z"]]);
  });

  it("rotating the token sends it once through PATCH and never shows it in the page", async () => {
    await owner.getByLabel("New API token").fill(ROTATED_TOKEN);
    await owner.getByRole("button", { name: "Replace token" }).click();
    await owner.getByText("Token replaced. The next sync uses it.").waitFor();
    expect(await owner.getByLabel("New API token").inputValue()).toBe("");
    const dom = await domText(owner);
    expect(dom).not.toContain(ROTATED_TOKEN);
    expect(dom).not.toContain(FIRST_TOKEN);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "settings saved and token rotated");

    // The rotated token is the one the service now sends: the source accepts only it.
    acceptedToken = ROTATED_TOKEN;
    await owner.getByRole("button", { name: "Test connection" }).click();
    await owner.locator('[data-test="pipelines-found"]').getByText("2").waitFor();
    expect(await owner.locator('[data-test="authenticated"]').textContent()).toBe("yes");
    expect(problems.take()).toEqual([]);
    await shot(owner, "connection");
  });

  it("the list shows each connection's rate, health and last run", async () => {
    await owner.getByRole("link", { name: "CRM connections" }).click();
    const card = owner.getByRole("list", { name: "Connections" }).locator("li").first();
    await card.locator(".badge", { hasText: "healthy" }).waitFor();
    expect(await card.textContent()).toContain("150 requests/s");
    expect(await card.textContent()).toContain(`${2 + 3 + 2 + 1 + LEADS + 1 + 1 + 1} records`);
    await shot(owner, "connections");
  });

  it("a failed run shows each entity's failure: what happened, its rule and its fix; the connection turns failing", async () => {
    acceptedToken = "a-token-the-service-does-not-have";
    await owner.goto(connectionUrl);
    await owner.getByRole("button", { name: "Sync now" }).click();
    await owner.locator('.run-status[data-status="failed"]').waitFor();
    const cell = owner.locator('tr[data-entity="pipelines"] .error-cell');
    expect(await cell.locator(".failure-detail").textContent()).toBe("the source refused the token (401): invalid token");
    expect(await cell.locator(".failure-rule code").textContent()).toBe("auth.token-accepted");
    expect(await cell.locator(".fix").textContent()).toBe(`Fix: ${RULES_BY_ID.get("auth.token-accepted")!.fix}`);
    const error = await cell.textContent();
    expect(error).not.toMatch(/\b\w+Error\b/);
    expect(error).not.toContain(ROTATED_TOKEN);
    await expectAccessible(owner, "a failed run");
    await shot(owner, "sync-failed");
    await owner.getByRole("link", { name: "CRM connections" }).click();
    await owner.getByRole("list", { name: "Connections" }).locator(".badge", { hasText: "failing" }).waitFor();
    expect(problems.take()).toEqual([]);
    acceptedToken = ROTATED_TOKEN;
  });

  it("pause and resume by keyboard alone: the schedule card, the next run and the list's health follow the API", async () => {
    await owner.goto(`${connectionUrl}/settings`);
    await tabTo(owner, owner.getByRole("button", { name: "Pause schedule" }));
    await owner.keyboard.press("Space");
    await owner.getByText("Schedule paused.").waitFor();
    await owner.locator('[data-test="next-run"]', { hasText: "paused" }).waitFor();
    expect((await harness.service.sync.connections.listAll()).map((connection) => connection.paused === true)).toEqual([true]);
    await expectAccessible(owner, "connection with its schedule paused");
    await shot(owner, "schedule-paused");
    await owner.getByRole("link", { name: "CRM connections" }).click();
    const card = owner.getByRole("list", { name: "Connections" }).locator("li").first();
    await card.locator(".badge", { hasText: "paused" }).waitFor();
    await tabTo(owner, card.getByRole("heading").getByRole("link"));
    await owner.keyboard.press("Enter");
    await owner.locator('[data-test="health"] .badge', { hasText: "paused" }).waitFor();
    await tabTo(owner, owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Settings" }));
    await owner.keyboard.press("Enter");
    await tabTo(owner, owner.getByRole("button", { name: "Resume schedule" }));
    await owner.keyboard.press("Enter");
    await owner.getByText("Schedule resumed.").waitFor();
    expect((await harness.service.sync.connections.listAll()).map((connection) => connection.paused === true)).toEqual([false]);
    expect(problems.take()).toEqual([]);
  });

  it("a running sync is cancelled from its live view by keyboard alone: the run and its unfinished entities are cancelled, not failed, and its progress closes", async () => {
    leadsGate = new Promise((resolve) => (releaseLeads = resolve));
    onTestFinished(() => releaseLeads());
    await owner.goto(connectionUrl);
    await tabTo(owner, owner.getByRole("button", { name: "Sync now" }));
    await owner.keyboard.press("Enter");
    await owner.locator('tr[data-entity="leads"] .badge', { hasText: "running" }).waitFor();
    // Pending entities look pending: an empty bar saying so, not a moving one.
    const eventsBar = owner.locator('.progress-list li[data-entity="events"]');
    expect(await eventsBar.locator(".progress-text").textContent()).toBe("waiting its turn");
    expect(await eventsBar.locator("progress").getAttribute("value")).toBe("0");
    await tabTo(owner, owner.getByRole("button", { name: "Cancel sync" }));
    await owner.keyboard.press("Enter");
    await owner.locator('.run-status[data-status="cancelled"]').waitFor();
    expect(await owner.locator(".run-status").textContent()).toMatch(/^Cancelled by the owner · started /);
    for (const entity of ["leads", "events"]) {
      expect(await owner.locator(`tr[data-entity="${entity}"] .badge`).textContent(), entity).toBe("cancelled");
      expect(await owner.locator(`tr[data-entity="${entity}"] .error-cell`).textContent(), entity).toBe("");
    }
    expect(await owner.locator('tr[data-entity="contacts"] .badge').textContent()).toBe("succeeded");
    expect(await owner.getByRole("button", { name: "Cancel sync" }).isHidden()).toBe(true);
    // A cancelled run closes its progress: nothing is left "running", no "so far".
    expect(await owner.locator("main").innerText()).not.toMatch(/\brunning\b|so far/);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "a cancelled run");
    await shot(owner, "sync-cancelled");
  });

  it("reset one entity and re-sync by keyboard alone, once confirmed: the new run reads every lead again from the start date", async () => {
    await owner.goto(`${connectionUrl}/settings`);
    const form = owner.getByRole("form", { name: "Read again from the start date" });
    // A focused select takes the option whose text is typed.
    await tabTo(owner, form.getByLabel("What to read again"));
    await owner.keyboard.type("Leads");
    expect(await form.getByLabel("What to read again").inputValue()).toBe("leads");
    expect(await form.getByLabel("Start a sync now").isChecked()).toBe(true);
    const seen = source.requests.length;
    await tabTo(owner, form.getByRole("button", { name: "Read again…" }));
    await owner.keyboard.press("Enter");
    const dialog = owner.getByRole("dialog", { name: "Read leads again?" });
    await dialog.getByText("The next sync re-reads every lead your CRM changed since 1 January 2020 (the start date)", { exact: false }).waitFor();
    await tabTo(owner, dialog.getByRole("button", { name: "Read leads again" }));
    await owner.keyboard.press("Enter");
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    expect(await owner.locator('tr[data-entity="leads"]').locator("td").nth(2).textContent()).toBe(String(LEADS));
    const leadsSince = source.requests.slice(seen).find((request) => request.path === "/leads")?.query["updated_since"];
    expect(Date.parse(leadsSince ?? "")).toBe(Date.parse("2020-01-01T00:00:00Z"));

    await owner.goto(`${connectionUrl}/settings`);
    await tabTo(owner, form.getByLabel("What to read again"));
    await owner.keyboard.type("Everything");
    expect(await form.getByLabel("What to read again").inputValue()).toBe("");
    // Space unticks the checkbox.
    await tabTo(owner, form.getByLabel("Start a sync now"));
    await owner.keyboard.press("Space");
    expect(await form.getByLabel("Start a sync now").isChecked()).toBe(false);
    await tabTo(owner, form.getByRole("button", { name: "Read again…" }));
    await owner.keyboard.press("Space");
    await tabTo(owner, owner.getByRole("dialog", { name: "Read everything again?" }).getByRole("button", { name: "Read everything again" }));
    await owner.keyboard.press("Space");
    await form.getByText("Contacts, leads, tasks, calls and lead events: the next sync reads them again from 1 January 2020.").waitFor();
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "connection after a reset");
    const [stored] = await harness.service.sync.connections.listAll();
    for (const entity of ["contacts", "leads", "tasks", "calls", "events"] as const) {
      expect(await harness.service.sync.records.getWatermark(stored!.id, entity)).toBeNull();
    }
  });

  it("the source API check, started by keyboard alone, shows a broken rule's finding under its endpoint, with its fix and spec section", async () => {
    // A correct source but for one rule: updated_since compared with > instead of >=.
    const broken = await startPreflightSource({ sinceExclusive: true });
    onTestFinished(() => broken.close());
    await owner.goto(`${harness.url}/#/connections/new`);
    await owner.getByLabel("Base URL").fill(broken.baseUrl);
    await owner.getByLabel("API token").fill(broken.token);
    await owner.getByLabel("Requests per second").fill("1000");
    await owner.getByRole("button", { name: "Save connection" }).click();
    await owner.getByRole("heading", { name: broken.baseUrl, level: 1 }).waitFor();
    await owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Settings" }).click();

    const started = owner.waitForResponse((response) => response.request().method() === "POST" && response.url().endsWith("/preflight"));
    await tabTo(owner, owner.getByRole("button", { name: "Check the source API" }));
    await owner.keyboard.press("Enter");
    expect((await started).status()).toBe(202);
    // The local service runs the check in process: its launcher's idle() is the gate, then the page's next read shows the end.
    await harness.service.preflightLauncher.idle();
    const summary = owner.locator('.preflight-summary[data-status="succeeded"]');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/^[1-9]\d* errors?, \d+ warnings?$/);
    const finding = owner.locator('.preflight-endpoint li[data-rule="incremental.inclusive"]').first();
    await finding.waitFor();
    expect(await finding.locator(".badge").textContent()).toBe("error");
    expect(await finding.locator(".finding-detail").textContent()).toContain("compare with >=, not >");
    expect(await finding.locator(".hint").textContent()).toContain("Spec: Source API > Incremental rules");
    // Grouped by endpoint: the finding sits under its endpoint's heading.
    const endpoint = await finding.evaluate((item) => item.closest("section")?.getAttribute("data-endpoint"));
    expect(await owner.locator(`.preflight-endpoint[data-endpoint="${endpoint}"] h3`).textContent()).toBe(endpoint);
    // Only the broken rule is reported.
    expect(new Set(await owner.locator(".preflight-endpoint li").evaluateAll((items) => items.map((item) => item.getAttribute("data-rule"))))).toEqual(
      new Set(["incremental.inclusive"]),
    );
    expect(await domText(owner)).not.toContain(broken.token);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "the source API check's findings");
    await shot(owner, "preflight");
  });

  it("a source API check that could not run shows the error line saying what to do", async () => {
    // A source that has gone away: its port refuses connections.
    const gone = await startSourceServer(() => ({ status: 200 }));
    await gone.close();
    await owner.goto(`${harness.url}/#/connections/new`);
    await owner.getByLabel("Base URL").fill(gone.baseUrl);
    await owner.getByLabel("API token").fill("a-token-for-a-source-that-is-gone");
    await owner.getByRole("button", { name: "Save connection" }).click();
    await owner.getByRole("heading", { name: gone.baseUrl, level: 1 }).waitFor();
    await owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Settings" }).click();
    await owner.getByRole("button", { name: "Check the source API" }).click();
    await owner.locator('.preflight-summary[data-status="failed"]').waitFor();
    expect(await owner.locator(".preflight-summary").textContent()).toBe("The check could not run to its end · 0 errors, 0 warnings found before it stopped");
    expect(await owner.locator('[data-test="preflight-error"]').textContent()).toMatch(/connection refused by .*: start the source or fix the base URL/);
    expect(await owner.getByRole("button", { name: "Check the source API" }).isEnabled()).toBe(true);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "a source API check that could not run");
  });

  it("is readable at 360 px wide: no sideways scrolling, every field labelled", async () => {
    await owner.setViewportSize({ width: 360, height: 780 });
    const pages: [string, string][] = [
      [throttledRunUrl, "main .waits li"],
      [`${harness.url}/#/connections`, "main .card"],
      [connectionUrl, "main .status-table"],
      [`${connectionUrl}/settings`, "main .card"],
    ];
    for (const [url, ready] of pages) {
      await owner.goto(url);
      await owner.locator("main h1").waitFor();
      await owner.locator(ready).first().waitFor();
      expect(await owner.evaluate<number>("document.documentElement.scrollWidth"), url).toBeLessThanOrEqual(360);
      await expectAccessible(owner, `${url} at 360 px`);
    }
    expect(problems.take()).toEqual([]);
    // Every input and select of the connection's settings has a label.
    const unlabelled = await owner.evaluate<number>(`[...document.querySelectorAll("input, select")].filter((field) => field.labels.length === 0).length`);
    expect(unlabelled).toBe(0);
    await shot(owner, "connection-360px");
    await owner.setViewportSize({ width: 1280, height: 800 });
  });

  it("a 401 from the API sends the owner back to sign in", async () => {
    // The page keeps its token in memory; a token the server does not accept stands for an expired one.
    await owner.route("**/api/v1/**", (route) =>
      route.continue({ headers: { ...route.request().headers(), authorization: "Bearer not-a-session-token" } }),
    );
    await owner.goto(`${harness.url}/#/connections`);
    await owner.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await owner.evaluate(`location.hash = "#/connections?again"`);
    await owner.getByRole("alert").getByText("Your session ended. Sign in again.").waitFor();
    await owner.getByRole("button", { name: "Sign in" }).waitFor();
    await owner.unrouteAll();
    // The 401 is the answer this step provokes; the signed-out screen is checked as it stands.
    expectOnlyAnswered(problems.take(), 401, "GET");
    await expectAccessible(owner, "signed out by a 401");
  });

  it("a ROP user lands on the Team, never on a 403; a connection's own page says why it is read-only, and offers no write control", async () => {
    const rop = await harness.signedInPage("acme", "ROP");
    const ropProblems = watchPageProblems(rop);
    // The API's 403 to anyone but the owner is what these screens explain; nothing else may fail on them.
    const expectOnly403s = () =>
      expect(ropProblems.take().filter((problem) => !problem.startsWith("403: GET ") && !problem.includes("status of 403 "))).toEqual([]);
    // The connections list is the owner's: for a ROP its address is the Team.
    await rop.goto(`${harness.url}/#/connections`);
    await rop.getByRole("heading", { name: "Team", level: 1 }).waitFor();
    expect(await rop.getByRole("link", { name: "New connection" }).count()).toBe(0);
    // On a connection's own page, and its settings: the note says why, no form, no button but signing out.
    for (const url of [connectionUrl, `${connectionUrl}/settings`]) {
      await rop.goto(url);
      await rop.getByRole("note").getByText(/Read-only: you are signed in as ROP/).waitFor();
      if (url === connectionUrl) await shot(rop, "read-only-rop");
      await rop.locator("main p[role=status]").getByText(/not the workspace owner|owner/i).waitFor();
      expect(await rop.locator("main form, main button").count(), url).toBe(0);
      expect(await rop.getByRole("heading", { name: "Source API check" }).count(), url).toBe(0);
      await expectAccessible(rop, `ROP: ${url}, read-only`);
    }
    expectOnly403s();
    // A run's live view: no cancel control either.
    await rop.goto(`${connectionUrl}/runs/20260101T000000000Z-any`);
    await rop.locator("main p[role=status]").getByText(/owner/i).waitFor();
    expect(await rop.locator("main button").count()).toBe(0);
    await expectAccessible(rop, "ROP: a run, read-only");
    expectOnly403s();
    await rop.close();
  });
});
