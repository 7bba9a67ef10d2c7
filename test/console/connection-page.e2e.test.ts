import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULES_BY_ID } from "../../lambdas/domain/source-contract/rules/catalog";
import { monthInWords, timeInWords, type Velocity } from "../../console/src/velocity-api";
import { MOVING_LEADS, movingEntriesPerMonth, movingLeadName, movingLeadsCrm } from "../builders/moving-leads-crm";
import { contactRecord, leadRecord, pipelineRecord, stageRecord, userRecord, type RawRecord } from "../builders/source-records";
import { crmSource, type CrmData } from "../support/crm-source";
import { runSettled } from "../support/run-settled";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";
import { tabTo } from "./keyboard";
import { expectOwnerWords } from "./owner-words";
import { watchPageProblems } from "./page-problems";
import { shot } from "./screenshots";

const TOKEN = "connection-page-token-8e1b";
const STAGES = [
  stageRecord({ id: "stage-new", name: "New", kind: "open", sort: 1 }),
  stageRecord({ id: "stage-qualified", name: "Qualified", kind: "open", sort: 2 }),
  stageRecord({ id: "stage-proposal", name: "Proposal", kind: "open", sort: 3 }),
  stageRecord({ id: "stage-won", name: "Won", kind: "won", sort: 4 }),
  stageRecord({ id: "stage-lost", name: "Lost", kind: "lost", sort: 5 }),
];
/** 110 leads over the stages (three pages of records at 50): 40 new, 30 qualified, 20 proposal, 8 won at 2,500, 12 lost. */
const STAGE_OF = (i: number) => (i < 40 ? "stage-new" : i < 70 ? "stage-qualified" : i < 90 ? "stage-proposal" : i < 98 ? "stage-won" : "stage-lost");
const LEADS: RawRecord[] = Array.from({ length: 110 }, (_, i) =>
  leadRecord({
    id: `lead-${i + 1}`,
    name: `Deal ${i + 1}`,
    stage_id: STAGE_OF(i),
    price: STAGE_OF(i) === "stage-won" ? 2500 : 100,
    responsible_user_id: "user-1",
    updated_at: `2026-03-0${1 + (i % 9)}T10:${String(i % 60).padStart(2, "0")}:00Z`,
    ...(STAGE_OF(i) === "stage-lost" ? { loss_reason: i % 3 === 0 ? "no budget" : "chose a competitor" } : {}),
  }),
);
const DATA: CrmData = {
  pipelines: [pipelineRecord({ stages: STAGES })],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: LEADS,
};
/** The same CRM but one lead's price is not a number: the leads page fails, and leads are required, so the run fails. */
const BROKEN: CrmData = { ...DATA, leads: [leadRecord({ id: "lead-bad", price: "about a thousand" })] };

/** The funnel of the source's own data, by the documented rule: a lead counts in its stage and every open stage before it; a lost one only in its stage. */
function expectedFunnel(leads: readonly RawRecord[]) {
  const inStage = (id: string) => leads.filter((lead) => lead["stage_id"] === id).length;
  const rows = STAGES.map((stage, k) => {
    const kind = String(stage["kind"]);
    const reached = kind === "lost" ? inStage(String(stage["id"])) : STAGES.reduce((sum, later, j) => sum + ((j === k || (j > k && kind === "open" && later["kind"] !== "lost")) ? inStage(String(later["id"])) : 0), 0);
    return { id: String(stage["id"]), kind, leads: inStage(String(stage["id"])), reached };
  });
  const won = rows.filter((row) => row.kind === "won").reduce((sum, row) => sum + row.leads, 0);
  const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${Math.round((part / whole) * 100)}%`);
  return rows.map((row, k) => {
    const next = rows.findIndex((other, j) => j > k && other.kind === "open");
    const toNext = row.kind !== "open" ? "—" : percent(next === -1 ? won : rows[next]!.reached, row.reached);
    const toWon = row.kind !== "open" ? "—" : percent(won, row.reached);
    return [row.id, String(row.leads), String(row.reached), toNext, toWon];
  });
}

describe("owner's console: the connection page an owner reads at a glance (issue 34; Chromium against the local service)", { timeout: 60_000 }, () => {
  let harness: ConsoleHarness;
  let healthy: SourceServer;
  let broken: SourceServer;
  let moving: SourceServer;
  /** Which sync the moving CRM is at: its leads change stages from one to the next. */
  let movingSync = 0;
  let owner: Page;
  let problems: ReturnType<typeof watchPageProblems>;
  const ids = { healthy: "", broken: "" };
  const base = (id: string) => `${harness.url}/#/connections/${encodeURIComponent(id)}`;

  let callApi: Awaited<ReturnType<ConsoleHarness["ownerApi"]>>;
  const createAndSync = async (name: string, source: SourceServer) => {
    const id = (await callApi("POST", "/connections", { name, base_url: source.baseUrl, token: TOKEN, rate_limit: 1000, sync_since: "2020-01-01T00:00:00Z" })).body["id"] as string;
    const run = await callApi("POST", `/connections/${id}/syncs`);
    await runSettled(harness.service.sync.engine, harness.service.sync.runs, id, run.body["id"] as string);
    return id;
  };
  const sections = () => owner.getByRole("navigation", { name: "Connection sections" });

  beforeAll(async () => {
    harness = await startConsoleHarness();
    healthy = await startSourceServer(crmSource(() => DATA, { token: TOKEN }));
    broken = await startSourceServer(crmSource(() => BROKEN, { token: TOKEN }));
    moving = await startSourceServer(crmSource(() => movingLeadsCrm(movingSync), { token: TOKEN }));
    callApi = await harness.ownerApi("acme");
    ids.healthy = await createAndSync("Sales CRM", healthy);
    ids.broken = await createAndSync("Broken CRM", broken);
    owner = await harness.signedInPage("acme", "owner");
    owner.setDefaultTimeout(20_000);
    problems = watchPageProblems(owner);
  }, 180_000);

  afterAll(async () => {
    await healthy?.close();
    await broken?.close();
    await moving?.close();
    await harness?.close();
  });

  it("the sign-in hint says what ROP and MOP can do: the managers' figures, never that they see the owner's pages", async () => {
    const page = await harness.browser.newPage();
    await page.goto(`${harness.url}/`);
    const hint = await page.locator(".hint", { hasText: "(ROP)" }).textContent();
    expect(hint).toContain("a head of sales (ROP) sees every manager's figures");
    expect(hint).toContain("a manager (MOP) sees their own figures");
    expect(hint).not.toContain("read-only");
    await page.close();
  });

  it("the Status section of a connection with a failed entity shows the rule and the fix above the fold at 1280×800", async () => {
    await owner.goto(base(ids.broken));
    const problem = owner.locator('.problems li[data-entities~="leads"]');
    await problem.waitFor();
    const run = (await callApi("GET", `/connections/${ids.broken}/syncs`)).body["data"][0];
    const failure = run.entities.find((entity: { entity: string }) => entity.entity === "leads").failure;
    expect(await problem.locator(".failure-rule code").textContent()).toBe(failure.rule);
    expect(await problem.locator(".fix").textContent()).toBe(`Fix: ${RULES_BY_ID.get(failure.rule)!.fix}`);
    expect(await owner.locator('[data-test="health"] .badge').first().textContent()).toBe("failing");
    expect(await owner.locator('tr[data-entity="leads"] .badge').textContent()).toBe("failed");
    // Above the fold: the fix's and the rule's lines end inside the first 800 px, unscrolled.
    expect(await owner.evaluate<number>("window.scrollY")).toBe(0);
    for (const line of [problem.locator(".fix"), problem.locator(".failure-rule"), owner.locator('[data-test="health-why"]')]) {
      const box = (await line.boundingBox())!;
      expect(box.y + box.height, await line.textContent() ?? "").toBeLessThanOrEqual(800);
    }
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "status of a failing connection");
    await expectOwnerWords(owner, "status of a failing connection");
    await shot(owner, "connection-status-failing");
  });

  it("each section has its own address: a link opens it, marked current", async () => {
    const expected: [string, string, string][] = [
      ["", "Status", '[data-test="health"]'],
      ["/runs", "Runs", '[data-test="run-history"]'],
      ["/data", "Data", 'tr[data-collection="leads"]'],
      ["/settings", "Settings", 'form[aria-labelledby="settings-title"]'],
    ];
    for (const [path, label, ready] of expected) {
      await owner.goto(`${base(ids.healthy)}${path}`);
      await owner.locator(ready).first().waitFor();
      expect(await sections().locator('a[aria-current="page"]').textContent(), path).toBe(label);
      expect(await owner.getByRole("heading", { level: 1 }).textContent()).toBe("Sales CRM");
    }
    expect(problems.take()).toEqual([]);
  });

  it("the new-connection form shows every problem at once, next to its field, in plain words", async () => {
    await owner.goto(`${harness.url}/#/connections/new`);
    await tabTo(owner, owner.getByLabel("Base URL"));
    await owner.keyboard.type("not a web address");
    await tabTo(owner, owner.getByLabel("Requests per second"));
    await owner.keyboard.press("ControlOrMeta+A");
    await owner.keyboard.type("0");
    await tabTo(owner, owner.getByRole("button", { name: "Save connection" }));
    await owner.keyboard.press("Enter");
    await owner.getByText("Check the 3 marked fields.").waitFor();
    for (const label of ["Base URL", "API token", "Requests per second"]) {
      const field = owner.getByLabel(label, { exact: true });
      expect(await field.getAttribute("aria-invalid"), label).toBe("true");
      const errorId = (await field.getAttribute("aria-describedby"))!.split(" ").find((id) => id.endsWith("-error"))!;
      const message = await owner.locator(`[id="${errorId}"]`).textContent();
      expect(message, label).toMatch(new RegExp(`^${label} `));
    }
    expect(await owner.locator(".field-error", { hasText: "Requests per second must be a whole number from 1 to 1000" }).count()).toBe(1);
    // The first broken field has focus.
    expect(await owner.evaluate<string | undefined>("document.activeElement?.getAttribute('name')")).toBe("base_url");
    await expectOwnerWords(owner, "new connection with its problems");
    await expectAccessible(owner, "new connection with its problems");
    await shot(owner, "create-connection-problems");
    // The 422 is the answer this step provokes.
    expect(problems.take().filter((problem) => !problem.includes("422"))).toEqual([]);
  });

  it("the start date's default is written out before saving, and a typed day is said back in words", async () => {
    const page = await harness.browser.newPage();
    // The page's clock, injected before it loads: the default is 1 January of the year the page believes it is.
    await page.clock.setFixedTime(new Date("2031-06-15T10:00:00Z"));
    await page.goto(`${harness.url}/`);
    await page.getByLabel("Workspace").fill("acme");
    await page.getByLabel("Workspace").press("Enter");
    await page.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await page.goto(`${harness.url}/#/connections/new`);
    const words = page.locator('[data-test="start-date-words"]');
    expect(await words.textContent()).toBe("Left empty, the first sync starts on 1 January 2031 (the default: 1 January this year) and reads nothing your CRM changed before then.");
    await tabTo(page, page.getByLabel("Start date"));
    await page.keyboard.type("03012024");
    await words.getByText("The first sync reads what changed in your CRM since 1 March 2024 (UTC).").waitFor();
    expect((await page.getByLabel("Start date").getAttribute("aria-describedby"))?.split(" ")).toContain(await words.getAttribute("id"));
    await page.close();
  });

  it("Test, before saving, calls the CRM with what was typed and stores nothing", async () => {
    const before = (await harness.service.sync.connections.listAll()).length;
    // A fresh form (the last test left this one filled in).
    await owner.goto(`${harness.url}/#/connections`);
    await owner.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    await owner.goto(`${harness.url}/#/connections/new`);
    await tabTo(owner, owner.getByLabel("Base URL"));
    await owner.keyboard.type(healthy.baseUrl);
    await tabTo(owner, owner.getByLabel("API token"));
    await owner.keyboard.type("not-the-token");
    await tabTo(owner, owner.getByRole("button", { name: "Test", exact: true }));
    await owner.keyboard.press("Enter");
    await owner.locator('.test-result [data-test="authenticated"]', { hasText: "no" }).waitFor();
    expect(await owner.locator(".test-result p").first().textContent()).toBe("Your CRM answered, but the test did not succeed.");
    await owner.getByLabel("API token").fill(TOKEN);
    await tabTo(owner, owner.getByRole("button", { name: "Test", exact: true }));
    await owner.keyboard.press("Enter");
    await owner.locator('.test-result [data-test="pipelines-found"]', { hasText: "1" }).waitFor();
    expect(await owner.locator('.test-result [data-test="authenticated"]').textContent()).toBe("yes");
    // Nothing stored: the workspace has as many connections as before, and the typed token is still only in its field.
    expect((await harness.service.sync.connections.listAll()).length).toBe(before);
    expect(await owner.locator("main").innerText()).not.toContain(TOKEN);
    expect(problems.take()).toEqual([]);
    await expectOwnerWords(owner, "new connection tested");
  });

  it("the settings set how often audits run and after how many hours data counts as stale, by keyboard alone", async () => {
    await owner.goto(`${base(ids.healthy)}/settings`);
    const settings = owner.getByRole("form", { name: "Settings" });
    await tabTo(owner, settings.getByLabel("Audits"));
    await owner.keyboard.type("Every day");
    await tabTo(owner, settings.getByLabel("Stale after (hours)"));
    await owner.keyboard.type("48");
    await owner.keyboard.press("Enter");
    await settings.getByText("Saved.").waitFor();
    const stored = (await callApi("GET", `/connections/${ids.healthy}`)).body;
    expect([stored["audit_schedule"], stored["freshness_hours"]]).toEqual(["1d", 48]);
    expect(problems.take()).toEqual([]);
  });

  it("reset asks first, naming what the next sync re-reads and since when; cancelling the confirmation changes nothing", async () => {
    const watermark = await harness.service.sync.records.getWatermark(ids.healthy, "leads");
    expect(watermark).not.toBeNull();
    const resets: string[] = [];
    owner.on("request", (request) => void (request.url().endsWith("/reset") && resets.push(request.url())));
    await owner.goto(`${base(ids.healthy)}/settings`);
    const form = owner.getByRole("form", { name: "Read again from the start date" });
    await tabTo(owner, form.getByLabel("What to read again"));
    await owner.keyboard.type("Leads");
    await tabTo(owner, form.getByRole("button", { name: "Read again…" }));
    await owner.keyboard.press("Enter");
    const dialog = owner.getByRole("dialog", { name: "Read leads again?" });
    expect(await dialog.textContent()).toContain("The next sync re-reads every lead your CRM changed since 1 January 2020 (the start date)");
    await expectAccessible(owner, "reset's confirmation");
    await shot(owner, "reset-confirm");
    // The safe choice has focus: Enter on it cancels.
    expect(await owner.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Cancel, change nothing");
    await owner.keyboard.press("Enter");
    await form.getByText("Nothing changed.").waitFor();
    // Escape cancels too.
    await tabTo(owner, form.getByRole("button", { name: "Read again…" }));
    await owner.keyboard.press("Enter");
    await dialog.waitFor();
    await owner.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(resets).toEqual([]);
    expect(await harness.service.sync.records.getWatermark(ids.healthy, "leads")).toEqual(watermark);
    owner.removeAllListeners("request");
    expect(problems.take()).toEqual([]);
  });

  it("delete asks first, saying what is removed and that it cannot be undone; cancelling changes nothing, confirming deletes", async () => {
    const doomed = (await callApi("POST", "/connections", { name: "Old test CRM", base_url: healthy.baseUrl, token: TOKEN })).body["id"] as string;
    await owner.goto(`${base(doomed)}/settings`);
    await tabTo(owner, owner.getByRole("button", { name: "Delete connection" }));
    await owner.keyboard.press("Enter");
    const dialog = owner.getByRole("dialog", { name: "Delete Old test CRM?" });
    const text = await dialog.textContent();
    expect(text).toContain("every record synced from it, its run history, audits and figures are deleted");
    expect(text).toContain("This cannot be undone");
    await expectAccessible(owner, "delete's confirmation");
    await owner.keyboard.press("Enter");
    await owner.getByText("Not deleted.").waitFor();
    expect((await callApi("GET", `/connections/${doomed}`)).status).toBe(200);
    await tabTo(owner, owner.getByRole("button", { name: "Delete connection" }));
    await owner.keyboard.press("Enter");
    await tabTo(owner, dialog.getByRole("button", { name: "Delete for good" }));
    await owner.keyboard.press("Enter");
    await owner.getByRole("heading", { name: "CRM connections", level: 1 }).waitFor();
    expect((await callApi("GET", `/connections/${doomed}`)).status).toBe(404);
    expect(problems.take()).toEqual([]);
  });

  it("records: a total, columns per kind with names in place of ids, search by exact id, and paging", async () => {
    await owner.goto(`${base(ids.healthy)}/records/leads`);
    await owner.getByText("Page 1: 1 to 50 of 110, newest first.").waitFor();
    expect(await owner.locator('[data-test="records-total"]').textContent()).toMatch(/^110 stored, counted at the end of the last run/);
    const table = owner.getByRole("region", { name: "Leads, newest first" });
    expect(await table.locator("thead th").allTextContents()).toEqual(["Id", "Name", "Stage", "Pipeline", "Price", "Responsible", "Won or lost", "Updated"]);
    const row = (recordId: string) => owner.locator(`tr[data-record="${recordId}"]`).first();
    await owner.getByRole("button", { name: "Next page" }).click();
    await owner.getByText("Page 2: 51 to 100 of 110, newest first.").waitFor();
    await owner.getByRole("button", { name: "Next page" }).click();
    await owner.getByText("Page 3: 101 to 110 of 110, newest first.").waitFor();
    expect(await owner.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    // Search by exact id: lead 95 is won, at 2,500, in the Won stage of Sales, Anna's.
    await tabTo(owner, owner.getByLabel("Find by id (exactly as in your CRM)"));
    await owner.keyboard.type("lead-95");
    await owner.keyboard.press("Enter");
    const found = owner.locator(".found");
    await found.locator('tr[data-record="lead-95"]').waitFor();
    expect(await found.locator('tr[data-record="lead-95"] td').allTextContents()).toEqual(["Deal 95", "Won", "Sales", "2,500", "Anna Smith", "won", expect.any(String)]);
    const json = JSON.parse((await found.locator("pre").textContent()) ?? "null") as Record<string, unknown>;
    expect(json["id"]).toBe("lead-95");
    await found.locator(".verdict strong").waitFor();
    // An id that is not stored says so, in words.
    await owner.getByLabel("Find by id (exactly as in your CRM)").fill("lead-9999");
    await owner.getByLabel("Find by id (exactly as in your CRM)").press("Enter");
    await found.getByText("No lead with the id lead-9999 is stored.").waitFor();
    expect(await row("lead-9999").count()).toBe(0);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "records of leads");
    await expectOwnerWords(owner, "records of leads");
    await shot(owner, "records");
  });

  it("the funnel per pipeline: leads that reached each stage, conversions and won revenue in the CRM's currency, equal to the figures computed from the source's data", async () => {
    await owner.goto(`${base(ids.healthy)}/funnel`);
    const sales = owner.getByRole("region", { name: "Pipeline Sales" });
    await sales.locator("canvas[data-drawn=true]").waitFor();
    await sales.getByRole("button", { name: "Show the table" }).click();
    const rows = await sales.locator('figure[data-chart="funnel"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-stage"), ...[...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent)]));
    expect(rows).toEqual(expectedFunnel(LEADS));
    // The numbers are on the drawing too: its name says each stage's reached count, in stage order.
    expect(await sales.locator("canvas").getAttribute("aria-label")).toBe("Funnel of Sales: New 98, Qualified 58, Proposal 28, Won 8.");
    expect(await sales.locator('[data-test="won"]').textContent()).toBe("8");
    expect(await sales.locator('[data-test="lost"]').textContent()).toBe("12");
    expect(await sales.locator('[data-test="revenue-won"]').textContent()).toBe("20,000, in your CRM's currency (the service does not store it)");
    expect(await sales.locator(".loss-reasons li").allTextContents()).toEqual(["chose a competitor (8)", "no budget (4)"]);
    expect(problems.take()).toEqual([]);
    await expectAccessible(owner, "funnel");
    await expectOwnerWords(owner, "funnel");
    await shot(owner, "funnel");
  });

  it("the funnel shows each pipeline's velocity as the velocity figures answer, read once: per stage of the month chosen the entries, on to the next stage, reached won, the median and 9-in-10 time in words; the open leads waiting longest by name; accessible at 360 px", async () => {
    // Before any lead is stored there is no stage history: the card says it builds up from the next syncs.
    await owner.goto(`${base(ids.broken)}/funnel`);
    await owner.getByRole("region", { name: "How fast leads of Sales move" }).getByText("stage history builds up from the next syncs", { exact: false }).waitFor();
    movingSync = 0;
    const id = await createAndSync("Moving CRM", moving);
    for (movingSync = 1; movingSync <= 2; movingSync += 1) {
      const run = await callApi("POST", `/connections/${id}/syncs`);
      expect((await runSettled(harness.service.sync.engine, harness.service.sync.runs, id, run.body["id"] as string)).status).toBe("succeeded");
    }
    const answer = (await callApi("GET", `/connections/${id}/analytics/velocity`)).body as Velocity;
    const own = answer.pipelines.find((row) => row.pipeline_id === "mv-pipeline")!;
    // The answer itself holds the source's moves: every lead entered New in January, each move in February.
    expect(Object.fromEntries(own.periods.map((row) => [row.period, row.stages.reduce((sum, stage) => sum + stage.entered, 0)]))).toEqual(movingEntriesPerMonth(2));
    const stageNames = new Map([["mv-new", "New"], ["mv-qualified", "Qualified"], ["mv-proposal", "Proposal"], ["mv-won", "Won"], ["mv-lost", "Lost"]]);
    const share = (value: number | null) => (value === null ? "—" : `${Math.round(value * 100)}%`);
    const expectedRows = (period: string) =>
      own.periods.find((row) => row.period === period)!.stages.map((stage) => [
        stage.stage_id,
        stageNames.get(stage.stage_id),
        String(stage.entered),
        share(stage.conversion_to_next),
        share(stage.conversion_to_won),
        timeInWords(stage.median_seconds_in_stage),
        timeInWords(stage.p90_seconds_in_stage),
      ]);

    const velocityReads: string[] = [];
    const countVelocityReads = (request: Request) => void (request.url().endsWith("/analytics/velocity") && velocityReads.push(request.url()));
    owner.on("request", countVelocityReads);
    await owner.goto(`${base(id)}/funnel`);
    const part = owner.getByRole("region", { name: "How fast leads of Moves move" });
    const table = part.locator("table.velocity-table");
    await table.waitFor();
    const rows = () => table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-stage"), ...[...tr.querySelectorAll("th, td")].map((cell) => cell.textContent)]));
    // The latest month with entries first; the picker offers every month, newest first.
    const latest = own.periods[own.periods.length - 1]!.period;
    expect(await part.getByLabel("Month leads entered the stage").inputValue()).toBe(latest);
    expect(await part.locator("option").allTextContents()).toEqual(own.periods.map((row) => monthInWords(row.period)).reverse());
    expect(await rows()).toEqual(expectedRows(latest));
    expect(await rows()).toContainEqual(expect.arrayContaining(["not enough data"]));
    await part.getByLabel("Month leads entered the stage").selectOption(own.periods[0]!.period);
    await table.locator("caption", { hasText: monthInWords(own.periods[0]!.period) }).waitFor();
    expect(await rows()).toEqual(expectedRows(own.periods[0]!.period));
    // The open leads waiting longest, by name, longest first, each waiting as long as the page's own reading says.
    const asOf = (await part.locator('[data-test="velocity-as-of"] time').getAttribute("datetime"))!;
    const waiting = await part.locator("tr[data-lead]").evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute("data-lead"), ...[...tr.querySelectorAll("th, td")].map((cell) => cell.querySelector("time")?.getAttribute("datetime") ?? cell.textContent)]),
    );
    expect(waiting).toEqual(
      own.longest_waiting.map((row) => [
        row.lead_id,
        movingLeadName(Number(row.lead_id.slice("mv-lead-".length))) ?? row.lead_id,
        stageNames.get(row.stage_id),
        new Date(row.since).toISOString(),
        timeInWords((Date.parse(asOf) - Date.parse(row.since)) / 1000),
      ]),
    );
    // Both edges are among them: the lead without a name (its id) and the one with the longest name.
    expect(waiting.map((row) => row[0])).toEqual(expect.arrayContaining(["mv-lead-4", "mv-lead-8"]));
    expect(waiting.length).toBeLessThanOrEqual(MOVING_LEADS);
    expect(velocityReads).toHaveLength(1);
    owner.off("request", countVelocityReads);
    await expectAccessible(owner, "funnel with velocity");
    await expectOwnerWords(owner, "funnel with velocity");
    await owner.setViewportSize({ width: 360, height: 800 });
    // Loaded at 360 px (a chart drawn at 1280 px resizes only after the fact): nothing scrolls sideways but the tables' own boxes.
    // A goto to the address the page is already at is no navigation at all (same hash), so leave the funnel first.
    await owner.goto(base(id));
    await owner.locator('[data-test="health"]').first().waitFor();
    await owner.goto(`${base(id)}/funnel`);
    await table.waitFor();
    await part.locator("tr[data-lead]").first().waitFor();
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await expectAccessible(owner, "funnel with velocity at 360 px");
    await owner.setViewportSize({ width: 1280, height: 800 });
    expect(problems.take()).toEqual([]);
  });

  it("the runs chart is readable with one run: drawn, and its table holds that one run", async () => {
    await owner.goto(`${base(ids.healthy)}/runs`);
    const figure = owner.locator("figure").first();
    await figure.locator("canvas[data-drawn=true]").waitFor();
    await figure.getByRole("button", { name: "Show the table" }).click();
    expect(await figure.locator("tbody tr").count()).toBe(1);
    expect(await owner.locator('[data-test="run-history"] tbody tr').count()).toBe(1);
    // The one run's label fits the chart: the canvas is as wide as its figure, and nothing scrolls sideways.
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(1280);
    await shot(owner, "runs-chart-one-run");
  });

  it("no route, field name or internal term on any screen, each passing axe-core, at 1280 px and at 360 px", async () => {
    const screens: [string, string][] = [
      [`${harness.url}/#/connections`, "main li.card"],
      [base(ids.healthy), '[data-test="health"]'],
      [`${base(ids.healthy)}/runs`, '[data-test="run-history"]'],
      [`${base(ids.healthy)}/data`, 'tr[data-collection="leads"] td.number'],
      [`${base(ids.healthy)}/settings`, 'form[aria-labelledby="settings-title"]'],
      [`${base(ids.healthy)}/quality`, "main h1"],
      [`${base(ids.healthy)}/explain/leads/lead-1`, ".verdict"],
      [`${base(ids.healthy)}/audits`, "main h1"],
      [`${base(ids.broken)}/runs`, '[data-test="run-history"]'],
    ];
    for (const width of [1280, 360]) {
      await owner.setViewportSize({ width, height: 800 });
      for (const [url, ready] of screens) {
        await owner.goto(url);
        await owner.locator(ready).first().waitFor();
        await owner.locator('main [role="status"]', { hasText: /^Loading/ }).waitFor({ state: "detached" });
        await expectOwnerWords(owner, `${url} at ${width} px`);
        await expectAccessible(owner, `${url} at ${width} px`);
        expect(await owner.evaluate<number>("document.documentElement.scrollWidth"), `${url} at ${width} px`).toBeLessThanOrEqual(width);
      }
    }
    await owner.goto(base(ids.healthy));
    await owner.locator('[data-test="health"]').waitFor();
    await shot(owner, "connection-status-360px");
    await owner.setViewportSize({ width: 1280, height: 800 });
    await owner.goto(base(ids.healthy));
    await owner.locator('tr[data-entity="leads"] td.number').waitFor();
    await shot(owner, "connection-status");
    expect(problems.take()).toEqual([]);
  });
});
