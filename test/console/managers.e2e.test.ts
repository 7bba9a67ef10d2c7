import { createHash } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANNA, BORIS, MANAGERS_NOW, managersCrm } from "../builders/managers-crm";
import { crmSource } from "../support/crm-source";
import { expectedFigures } from "../support/manager-figures-oracle";
import { runSettled } from "../support/run-settled";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { shot } from "./screenshots";
import { expectAccessible } from "./expect-accessible";
import { tabTo, typeOver } from "./keyboard";
import { watchPageProblems } from "./page-problems";

const TOKEN = "managers-console-token-3c9e";
const WORKSPACE = "acme-sales";
const DATA = managersCrm();
const PERIOD = { from: "2026-03-02", to: "2026-03-31" };
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 360, height: 780 };

const oracle = (user: string | null, period = PERIOD) => expectedFigures(DATA, user, period, MANAGERS_NOW);
const percent = (share: number | null) => (share === null ? "—" : `${Math.round(share * 100)}%`);
/** The member the dev sign-in makes of an email (lambdas/runtimes/local/dev-sign-in.ts): local-mop and 8 hex of its sha256. */
const devMember = (email: string) => `local-mop-${createHash("sha256").update(email.trim().toLowerCase()).digest("hex").slice(0, 8)}`;
const noSidewaysScroll = async (page: Page) => expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(NARROW.width);

describe("the managers' pages: Team (owner, ROP), a manager, My figures (MOP), links on Settings (Chromium against the local service)", { timeout: 90_000 }, () => {
  let harness: ConsoleHarness;
  let source: SourceServer;
  let connectionId = "";

  /** Signs in through the page's own form, by keyboard alone: Tab to each field, type, Enter. */
  async function signIn(role: "owner" | "ROP" | "MOP", email?: string, viewport = WIDE): Promise<{ page: Page; problems: ReturnType<typeof watchPageProblems> }> {
    const page = await harness.browser.newPage();
    await page.setViewportSize(viewport);
    page.setDefaultTimeout(20_000);
    const problems = watchPageProblems(page);
    await page.goto(`${harness.url}/`);
    await tabTo(page, page.getByLabel("Workspace"));
    await page.keyboard.type(WORKSPACE);
    await tabTo(page, page.getByLabel("Role"));
    await page.keyboard.type(role);
    // Enter from a text field submits the form (on a select it would open its list).
    await tabTo(page, page.getByLabel("Email (optional)"));
    if (email !== undefined) await page.keyboard.type(email);
    await page.keyboard.press("Enter");
    return { page, problems };
  }

  beforeAll(async () => {
    harness = await startConsoleHarness({ clock: { now: () => new Date(MANAGERS_NOW) } });
    source = await startSourceServer(crmSource(() => DATA, { token: TOKEN }));
    const signInResponse = await fetch(`${harness.url}/dev/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace: WORKSPACE, role: "owner" }) });
    const token = ((await signInResponse.json()) as { token: string }).token;
    const call = async (method: string, path: string, body?: unknown) =>
      (await (await fetch(`${harness.url}/api/v1/crm/custom${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })).json()) as Record<string, any>;
    connectionId = (await call("POST", "/connections", { name: "Sales CRM", base_url: source.baseUrl, token: TOKEN, rate_limit: 1000, sync_since: "2020-01-01T00:00:00Z" }))["id"];
    const run = await call("POST", `/connections/${connectionId}/syncs`);
    expect((await runSettled(harness.service.sync.engine, harness.service.sync.runs, connectionId, run["id"])).status).toBe("succeeded");
    await harness.service.sync.managerRefresher.idle();
  }, 120_000);

  afterAll(async () => {
    await source?.close();
    await harness?.close();
  });

  it("the sign-in says what each role sees", async () => {
    const page = await harness.browser.newPage();
    await page.goto(`${harness.url}/`);
    await page.getByText("a head of sales (ROP) sees every manager's figures").waitFor();
    await page.getByText("a manager (MOP) sees their own figures").first().waitFor();
    await page.close();
  });

  it("Team (owner, 1280x800): managers side by side, each figure as the stored records say, a chart of won revenue and conversion with its table; by keyboard alone", async () => {
    const { page, problems } = await signIn("owner");
    await page.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await tabTo(page, page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Team" }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Team", level: 1 }).waitFor();
    const table = page.getByRole("table", { name: /Managers, 2026-03-02 to 2026-03-31/ });
    await table.waitFor();
    const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? "").trim())));
    expect(rows.map((cells) => cells[0])).toEqual(["Anna Smith", "Boris Klein", "Carla Diaz inactive", "No manager"]);
    for (const [cells, user] of rows.map((cells, i) => [cells, [ANNA.id, BORIS.id, "u-carla", null][i] ?? null] as const)) {
      const expected = oracle(user);
      expect(cells.slice(1, 7), String(user)).toEqual([expected.leads.open, expected.leads.created, expected.leads.won, expected.leads.lost, percent(expected.leads.conversion), expected.leads.revenue_won.toLocaleString("en-US")].map(String));
    }
    const chart = page.locator('figure[data-chart="team"]');
    await chart.locator('canvas[data-drawn="true"]').waitFor();
    await tabTo(page, chart.getByRole("button", { name: "Show the table" }));
    await page.keyboard.press("Enter");
    await chart.getByRole("table", { name: "Revenue won and conversion per manager" }).waitFor();
    await expectAccessible(page, "Team");
    await shot(page, "team");
    expect(problems.take()).toEqual([]);

    // A row opens its manager: figures, what to act on, their leads.
    await tabTo(page, table.getByRole("link", { name: "Anna Smith" }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Anna Smith", level: 1 }).waitFor();
    const anna = oracle(ANNA.id);
    expect(await page.locator('[data-test="leads-open"]').textContent()).toBe(String(anna.leads.open));
    expect(await page.locator('[data-test="revenue-won"]').textContent()).toBe(anna.leads.revenue_won.toLocaleString("en-US"));
    expect(await page.locator('[data-test="median-days"]').textContent()).toBe(`${anna.leads.median_days_to_won} days`);
    expect(await page.locator('[data-test="tasks-overdue"]').textContent()).toBe(String(anna.tasks.overdue));
    expect(await page.locator("[data-signal]").evaluateAll((items) => items.map((item) => item.getAttribute("data-signal")))).toEqual(anna.signals.map((signal) => signal.rule));
    await page.getByText("1 open lead has had no task, call or event for 14 days or more.").waitFor();
    await page.locator("li[data-lead]").nth(5).waitFor();
    expect(await page.locator("li[data-lead]").count()).toBe(6);
    await expectAccessible(page, "a manager");
    await shot(page, "manager");

    // The period, by keyboard: a single day, the last of the default period.
    await tabTo(page, page.getByLabel("From", { exact: true }));
    await page.keyboard.type("03312026");
    await tabTo(page, page.getByLabel("To", { exact: true }));
    await page.keyboard.type("03312026");
    await page.keyboard.press("Enter");
    await page.getByText("period 2026-03-31 to 2026-03-31 (UTC)").waitFor();
    expect(await page.locator('[data-test="leads-won"]').textContent()).toBe(String(oracle(ANNA.id, { from: "2026-03-31", to: "2026-03-31" }).leads.won));
    expect(problems.take()).toEqual([]);
    await page.close();
  });

  it("Settings (owner): the managers' links in words; the owner links Boris to a member by keyboard alone", async () => {
    const { page, problems } = await signIn("owner");
    await page.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    // The links live in the connection's Settings section.
    await page.goto(`${harness.url}/#/connections/${encodeURIComponent(connectionId)}/settings`);
    const card = page.getByRole("region", { name: "Managers" });
    await card.locator('[data-source-user="u-boris"] [data-test="link"]').waitFor();
    expect(await card.locator('[data-source-user="u-carla"] [data-test="link"]').textContent()).toBe("Not linked: no member with this email has signed in yet.");
    await tabTo(page, card.getByLabel("CRM user", { exact: true }));
    await page.keyboard.type("Boris");
    await tabTo(page, card.getByLabel("Member's user id"));
    await typeOver(page, devMember(BORIS.sessionEmail));
    await page.keyboard.press("Enter");
    await card.getByText(`Linked by you to the member ${devMember(BORIS.sessionEmail)}.`).waitFor();
    // The idle threshold: the API's rule under the field, then a value it takes.
    await tabTo(page, card.getByLabel("Idle after (days)"));
    await typeOver(page, "366");
    await page.keyboard.press("Enter");
    await card.getByText("Idle after must be an integer from 1 to 365").waitFor();
    expect(problems.take().sort()).toEqual([expect.stringMatching(/^422: PATCH /), expect.stringMatching(/status of 422/)]);
    await tabTo(page, card.getByLabel("Idle after (days)"));
    await typeOver(page, "30");
    await page.keyboard.press("Enter");
    await card.getByText("Saved.").waitFor();
    await expectAccessible(page, "connection: managers");
    await shot(page, "managers-links");
    expect(problems.take()).toEqual([]);
    await page.close();
  });

  it("My figures (MOP, 1280x800 and 360 px): a manager linked by email lands on their own figures, never a 403; their signals and leads", async () => {
    const { page, problems } = await signIn("MOP", ANNA.sessionEmail);
    await page.getByRole("heading", { name: "My figures", level: 1 }).waitFor();
    await page.getByText("Anna Smith, from 2026-03-02 to 2026-03-31 (UTC).").waitFor();
    const anna = oracle(ANNA.id);
    expect(await page.locator('[data-test="conversion"]').textContent()).toBe(percent(anna.leads.conversion));
    expect(await page.locator('[data-test="completed-by-due"]').textContent()).toBe(percent(anna.tasks.completed_by_due));
    expect(await page.locator("[data-signal]").count()).toBe(anna.signals.length);
    await page.locator("li[data-lead]").nth(5).waitFor();
    // The MOP's header offers their own figures only.
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link").allTextContents()).toEqual(["My figures"]);
    await expectAccessible(page, "My figures");
    await shot(page, "my-figures");
    await page.setViewportSize(NARROW);
    await noSidewaysScroll(page);
    await expectAccessible(page, "My figures at 360 px");
    await shot(page, "my-figures-360px");
    expect(problems.take()).toEqual([]);
    await page.close();
  });

  it("My figures (MOP linked by the owner): Boris sees his row; a MOP linked to nobody reads the sentence to ask the owner", async () => {
    const boris = await signIn("MOP", BORIS.sessionEmail);
    await boris.page.getByText("Boris Klein, from 2026-03-02 to 2026-03-31 (UTC).").waitFor();
    await boris.page.getByText(/calls in the period did not connect/).waitFor();
    expect(boris.problems.take()).toEqual([]);
    await boris.page.close();

    const nobody = await signIn("MOP", "zed@example.com");
    await nobody.page.getByText("Ask the workspace owner to link you on the connection's settings").waitFor();
    await expectAccessible(nobody.page, "My figures, not linked");
    // The one 403 is the API's answer the page shows in words (Chromium also logs it as a failed resource).
    expect(nobody.problems.take().filter((problem) => !problem.startsWith("403: GET") && !problem.includes("status of 403"))).toEqual([]);
    await nobody.page.close();
  });

  it("Team (ROP, 360 px): a head of sales lands on the Team; the page scrolls no sideways (the table scrolls in its own box) and passes axe-core", async () => {
    // On a phone from the start: the chart is drawn at the width it is shown at.
    const { page, problems } = await signIn("ROP", undefined, NARROW);
    await page.getByRole("heading", { name: "Team", level: 1 }).waitFor();
    await page.getByRole("table", { name: /Managers/ }).waitFor();
    await page.locator('figure[data-chart="team"] canvas[data-drawn="true"]').waitFor();
    await noSidewaysScroll(page);
    await expectAccessible(page, "Team at 360 px");
    await shot(page, "team-360px");
    // A row is reachable by keyboard inside the scrolling box.
    await tabTo(page, page.getByRole("link", { name: "Boris Klein" }));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Boris Klein", level: 1 }).waitFor();
    await noSidewaysScroll(page);
    await expectAccessible(page, "a manager at 360 px");
    expect(problems.take()).toEqual([]);
    await page.close();
  });
});
