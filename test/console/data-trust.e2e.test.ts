import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRecord, contactRecord, leadRecord, pipelineRecord, stageRecord, taskRecord, userRecord } from "../builders/source-records";
import { crmSource, type CrmData } from "../support/crm-source";
import { gate } from "../support/gate";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { shot } from "./screenshots";
import { startConsoleHarness, type ConsoleHarness } from "./console-harness";
import { expectAccessible } from "./expect-accessible";
import { watchPageProblems } from "./page-problems";
import { LOCAL_TIME_FORMAT } from "../../console/src/local-time-format";

/*
 * The console's data-trust screens (issue 23 items 3-6) in Debian's Chromium
 * against the local service: charts with their tables, live progress, a
 * run's and a connection's findings, explaining a record, audits. The source
 * yields findings from its first sync (a task linked to nothing, a call
 * direction defaulted, an updated_at that does not parse), then drifts (a lead
 * committed late, a contact changed without its updated_at advancing) so
 * that an audit heals both. Every wait is on a held source request or on the DOM.
 */

const TOKEN = "data-trust-source-token-51d0";
const LEADS = 120; // two pages of leads
const UNPARSEABLE_LEAD = "lead-unparseable";
const LATE_LEAD = "lead-late";
/** Created at the source while the audit reads leads: an ordinary change after the last sync, which the next sync brings. */
const NEW_LEAD = "lead-new-during-audit";

const data: CrmData = {
  // Two pipelines: each card draws its own funnel.
  pipelines: [pipelineRecord(), pipelineRecord({ id: "pipeline-2", name: "Partners", sort: 2, stages: [stageRecord({ id: "stage-intro", name: "Intro" })] })],
  users: [userRecord()],
  // contact-2 carries the newest updated_at, so the next sync's inclusive re-read never reaches contact-1.
  contacts: [contactRecord(), contactRecord({ id: "contact-2", name: "Jane Roe", updated_at: "2026-02-05T08:00:00Z" })],
  leads: [
    ...Array.from({ length: LEADS - 1 }, (_, i) =>
      leadRecord({
        id: `lead-${i + 1}`,
        name: `Deal ${i + 1}`,
        updated_at: `2026-02-03T08:${String(i % 60).padStart(2, "0")}:00Z`,
        ...(i % 10 === 1 ? { stage_id: "stage-won", price: 1000 } : {}),
        ...(i % 10 === 2 ? { stage_id: "stage-lost", loss_reason: "no budget" } : {}),
      }),
    ),
  ],
  tasks: [taskRecord(), taskRecord({ id: "task-unlinked", lead_id: null, contact_id: null, text: "Call back (linked to nothing)" })],
  calls: [callRecord({ direction: "sideways" })],
  events: [],
};

/**
 * A lead whose updated_at does not parse. Its source keeps a real instant for
 * it and filters updated_since by that (as the reference source's STORED_INSTANT
 * does), so a read from the start date returns it and an incremental one does not.
 */
const unparseableLead = leadRecord({ id: UNPARSEABLE_LEAD, name: "Broken clock", updated_at: "last Tuesday" });
const UNPARSEABLE_STORED_AT = Date.parse("2026-02-03T07:00:00Z");

/** After the first sync: what incremental sync cannot see. */
function applyDrift(): void {
  data.leads!.push(leadRecord({ id: LATE_LEAD, name: "Committed late", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }));
  data.contacts![0] = contactRecord({ phone: "+1 555 0199" });
}

interface LeadsHold {
  /** Opens when a /leads request arrives. */
  readonly reached: Promise<void>;
  readonly arrive: () => void;
  readonly opened: Promise<void>;
  /** Lets the held request, and every later one, through. */
  release(): void;
}


/** A chart was drawn: Chart.js marked its canvas after rendering, and the canvas holds painted pixels (nothing blocked it). */
async function expectDrawn(figure: Locator): Promise<void> {
  const canvas = figure.locator('canvas[data-drawn="true"]');
  await canvas.waitFor();
  const painted = await canvas.evaluate((element) => {
    const pixels: ArrayLike<number> = element.getContext("2d").getImageData(0, 0, element.width, element.height).data;
    let count = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) count += 1;
    return count;
  });
  expect(painted).toBeGreaterThan(0);
}

/** The chart's table is behind a button a keyboard reaches: Enter shows it, and says so. */
async function openTableByKeyboard(figure: Locator): Promise<Locator> {
  const toggle = figure.locator(".chart-toggle");
  expect(await toggle.textContent()).toBe("Show the table");
  expect(await toggle.getAttribute("aria-expanded")).toBe("false");
  const table = figure.locator(`#${await toggle.getAttribute("aria-controls")}`);
  expect(await table.isHidden()).toBe(true);
  await toggle.focus();
  await toggle.press("Enter");
  await figure.getByRole("button", { name: "Hide the table" }).waitFor();
  expect(await toggle.getAttribute("aria-expanded")).toBe("true");
  await table.waitFor({ state: "visible" });
  return table;
}


/**
 * The times in `scope`, each checked to be a `<time>`: the ISO instant in datetime, the UTC instant as its title
 * (the hover), and as text the owner's local time as the browser's own zone and language write it. Returns the instants.
 */
async function localTimesIn(scope: Locator): Promise<string[]> {
  const times = await scope.locator("time").evaluateAll(
    (elements, format) =>
      elements.map((element) => {
        const datetime = element.getAttribute("datetime") ?? "";
        return { datetime, title: element.getAttribute("title"), text: element.textContent, local: new Intl.DateTimeFormat(undefined, format).format(new Date(datetime)) };
      }),
    LOCAL_TIME_FORMAT,
  );
  for (const time of times) {
    expect(time.datetime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(time.title).toBe(time.datetime.replace("T", " ").replace(/\.\d+Z$/, " UTC"));
    expect(time.text).toBe(time.local);
  }
  return times.map((time) => time.datetime);
}

describe("the console's data-trust screens, end to end (Chromium, the local service, a drifting loopback source)", { timeout: 60_000 }, () => {
  let harness: ConsoleHarness;
  let source: SourceServer;
  let owner: Page;
  let connectionUrl = "";
  // An explicit gate: while armed, the source holds every /leads request until the test releases it.
  let leadsHold: LeadsHold | null = null;
  let problems: { take(): string[] };

  function holdLeads(): LeadsHold {
    const reached = gate();
    const opened = gate();
    const hold: LeadsHold = {
      reached: reached.opened,
      arrive: reached.open,
      opened: opened.opened,
      release: () => {
        leadsHold = null;
        opened.open();
      },
    };
    leadsHold = hold;
    return hold;
  }

  beforeAll(async () => {
    harness = await startConsoleHarness();
    const serve = crmSource(() => data, { token: TOKEN });
    source = await startSourceServer(async (request) => {
      const hold = request.path === "/leads" ? leadsHold : null;
      if (hold !== null) {
        hold.arrive();
        await hold.opened;
      }
      const reply = await serve(request);
      const since = Date.parse(request.query.get("updated_since") ?? "1970-01-01T00:00:00Z");
      const page = "json" in reply ? (reply.json as { data: unknown[]; has_more: boolean }) : null;
      // On the last page of leads, so that no page holds more than the limit.
      if (request.path === "/leads" && page !== null && !page.has_more && since <= UNPARSEABLE_STORED_AT) page.data = [...page.data, unparseableLead];
      return reply;
    });
    owner = await harness.signedInPage("trust", "owner");
    owner.setDefaultTimeout(20_000);
    // Every console error, failed request and CSP violation on any screen, for the last test.
    problems = watchPageProblems(owner);
    await owner.evaluate(`
      window.cspViolations = [];
      document.addEventListener("securitypolicyviolation", (event) => window.cspViolations.push(event.effectiveDirective + " " + event.blockedURI));
    `);
    await owner.getByRole("link", { name: "New connection" }).click();
    await owner.getByLabel("Base URL").fill(source.baseUrl);
    await owner.getByLabel("API token").fill(TOKEN);
    await owner.getByLabel("Requests per second").fill("1000");
    await owner.getByLabel("Start date").fill("2020-01-01");
    await owner.getByRole("button", { name: "Save connection" }).click();
    await owner.getByRole("button", { name: "Sync now" }).waitFor();
    connectionUrl = owner.url();
    // The first sync: nothing held.
    await owner.getByRole("button", { name: "Sync now" }).click();
    const ended = owner.locator('.run-status[data-status="succeeded"], .run-status[data-status="failed"]');
    await ended.waitFor({ timeout: 60_000 });
    expect(await ended.getAttribute("data-status"), (await owner.locator("table.entities").textContent()) ?? "").toBe("succeeded");
  }, 120_000);

  afterAll(async () => {
    leadsHold?.release();
    await source?.close();
    await harness?.close();
  });

  it("a run's findings show each rule's count, sample ids linking to the record, and the rule's fix", async () => {
    const findings = owner.getByRole("list", { name: "Findings of this run" });
    const unlinked = findings.locator('li[data-rule="task.unlinked"]');
    await unlinked.waitFor();
    expect(await unlinked.locator(".finding-count").textContent()).toBe("Tasks: 1 record");
    expect(await unlinked.locator(".fix").textContent()).toMatch(/^Fix: \S/);
    expect(await unlinked.getByRole("link", { name: "task-unlinked" }).getAttribute("href")).toMatch(/#\/connections\/[^/]+\/explain\/tasks\/task-unlinked$/);
    const defaulted = findings.locator('li[data-rule="call.direction-defaulted"]');
    expect(await defaulted.locator(".finding-count").textContent()).toBe("Calls: 1 record");
    expect(await defaulted.getByRole("link").allTextContents()).toEqual(["call-1"]);
    const unparseable = findings.locator('li[data-rule="record.updated-at"][data-entity="leads"]');
    expect(await unparseable.getByRole("link").allTextContents()).toEqual([UNPARSEABLE_LEAD]);
    await expectAccessible(owner, "a finished run with its findings");
    await shot(owner, "run-findings");
  });

  it("a live sync shows a progress bar per entity (pages so far against the last run's) and records per second", async () => {
    applyDrift();
    const hold = holdLeads();
    await owner.goto(connectionUrl);
    await owner.getByRole("button", { name: "Sync now" }).click();
    await hold.reached;
    const progress = owner.getByRole("list", { name: "Pages per entity" });
    // Leads are held on their first page: 0 of the 2 pages the first run read.
    const leads = progress.locator('li[data-entity="leads"]');
    await leads.locator(".progress-text", { hasText: "0 of 2 pages (as many as the last finished run read) · running" }).waitFor();
    expect(await leads.getByRole("progressbar", { name: "Leads" }).evaluate((bar) => [bar.value, bar.max])).toEqual([0, 2]);
    // Contacts are done: a full bar.
    const contacts = progress.locator('li[data-entity="contacts"]');
    await contacts.locator(".progress-text", { hasText: "succeeded" }).waitFor();
    expect(await contacts.getByRole("progressbar").evaluate((bar) => bar.value === bar.max)).toBe(true);
    expect(await owner.locator('[data-test="records-per-second"]').textContent()).toMatch(/^\d+\.\d records\/s · \d+ records so far$/);
    await expectAccessible(owner, "a live run's progress");
    await shot(owner, "sync-progress");
    hold.release();
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    // The bars are for a live run only.
    expect(await owner.locator(".live-progress").isHidden()).toBe(true);
  });

  it("records and duration per run over the last 50 runs are drawn as a chart, its table on demand by keyboard", async () => {
    await owner.goto(`${connectionUrl}/runs`);
    const figure = owner.locator('figure[data-chart="runs"]');
    await figure.waitFor();
    expect(await figure.locator("figcaption").textContent()).toBe("Records and duration of the last 2 runs");
    expect(await figure.locator("canvas").getAttribute("role")).toBe("img");
    await expectDrawn(figure);
    const table = await openTableByKeyboard(figure);
    const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(rows.map((row) => row[1])).toEqual(["succeeded", "succeeded"]);
    // Oldest first: the full first sync (every record), then the incremental one.
    expect(rows[0]![2]).toBe(String(2 + 4 + 1 + 2 + LEADS + 2 + 1));
    expect(Number(rows[1]![2])).toBeLessThan(Number(rows[0]![2]));
    await expectAccessible(owner, "the connection with its runs chart and table");
    await shot(owner, "runs-chart");
  });

  it("the connection's data quality shows per rule its counts, a trend chart with its table, sample ids and the fix", async () => {
    await owner.getByRole("navigation", { name: "Connection sections" }).getByRole("link", { name: "Data" }).click();
    await owner.getByRole("link", { name: "Data quality" }).click();
    await owner.getByRole("heading", { name: "Data quality", level: 1 }).waitFor();
    const unparseable = owner.locator('section[data-entity="leads"] li[data-rule="record.updated-at"]');
    await unparseable.waitFor();
    // Two finished runs; the second read only leads changed since the watermark, so the unparseable one was not seen again.
    expect(await unparseable.locator(".finding-count").textContent()).toBe("0 records in the last successful run · 0, 1 over the last 2 runs, newest first");
    expect(await unparseable.getByRole("link").allTextContents()).toEqual([UNPARSEABLE_LEAD]);
    const tasks = owner.locator('section[data-entity="tasks"] li[data-rule="task.unlinked"]');
    expect(await tasks.locator(".fix").textContent()).toMatch(/^Fix: \S/);
    expect(await tasks.getByRole("link").allTextContents()).toEqual(["task-unlinked"]);
    const trend = owner.locator('figure[data-chart="quality-trend"]');
    await expectDrawn(trend);
    const table = await openTableByKeyboard(trend);
    const unparseableRow = table.locator("tbody tr", { hasText: "Leads: record.updated-at" });
    expect(await unparseableRow.locator("td").allTextContents()).toEqual(["1", "0"]);
    await expectAccessible(owner, "data quality");
    await shot(owner, "quality");
  });

  it("a sample id opens its record's explanation: the verdict, the stored record and its lineage", async () => {
    await owner.locator('section[data-entity="leads"] li[data-rule="record.updated-at"]').getByRole("link", { name: UNPARSEABLE_LEAD }).click();
    await owner.getByRole("heading", { name: `Why lead ${UNPARSEABLE_LEAD} is as it is`, level: 1 }).waitFor();
    const verdict = owner.locator("section[data-verdict]");
    await verdict.waitFor();
    expect(await verdict.getAttribute("data-verdict")).toBe("updated-at-unparseable");
    expect(await verdict.getAttribute("data-present")).toBe("true");
    expect(await verdict.locator("p.verdict").textContent()).toContain("its change date could not be read");
    const stored = JSON.parse((await owner.getByLabel("Stored record, JSON").textContent()) ?? "null") as Record<string, unknown>;
    expect(stored["name"]).toBe("Broken clock");
    const lineage = owner.locator("section.lineage");
    expect(await lineage.locator('[data-fact="Times written"]').textContent()).toBe("1");
    expect(await lineage.locator('[data-fact="First stored"]').textContent()).toMatch(/ · by a sync, page \d+$/);
    expect(await lineage.locator('[data-fact="Last written"]').textContent()).toContain("changed in your CRM at a date that could not be read");
    expect(await lineage.locator('[data-fact="Needed a look when last written"]').textContent()).toContain("record.updated-at");
    // Lineage times are <time>s (local, UTC on hover); the updated_at that does not parse is no time, so none is shown as one.
    expect(await localTimesIn(lineage.locator('[data-fact="First stored"]'))).toHaveLength(1);
    expect(await localTimesIn(lineage.locator('[data-fact="Last written"]'))).toHaveLength(1);
    expect(await verdict.locator('[data-fact="Changed in your CRM at"] time').count()).toBe(0);
    await expectAccessible(owner, "a record's explanation");
    await shot(owner, "explain-record");
  });

  it("a record the store lacks is explained too: present false, never-returned, and no lineage", async () => {
    // Found by collection and id through the form, by keyboard.
    await owner.getByLabel("Kind of record").selectOption("leads");
    await owner.getByLabel("Its id (exactly as in your CRM)").fill("lead-that-never-was");
    await owner.getByLabel("Its id (exactly as in your CRM)").press("Enter");
    await owner.getByRole("heading", { name: "Why lead lead-that-never-was is as it is", level: 1 }).waitFor();
    const verdict = owner.locator('section[data-verdict="never-returned"]');
    await verdict.waitFor();
    expect(await verdict.getAttribute("data-present")).toBe("false");
    expect(await verdict.locator("p.verdict").textContent()).toBe("Your CRM has not sent this record in any sync or audit since the start date.");
    expect(await owner.locator('[data-fact="Last audit"]').textContent()).toBe("none has run");
    expect(await owner.locator('[data-fact="Stored"]').textContent()).toBe("no");
    await owner.getByRole("region", { name: "Its history" }).getByText("None: the service holds no such record.").waitFor();
    expect(await owner.getByLabel("Stored record, JSON").count()).toBe(0);
    await expectAccessible(owner, "an absent record's explanation");
    await shot(owner, "explain-absent");
  });

  it("a record opened in the records explorer links to its explanation, which says current for an ordinary record", async () => {
    await owner.goto(`${connectionUrl}/records/contacts`);
    await owner.locator('tr[data-record="contact-2"] button.record-id').click();
    await owner.locator('.record-detail:not([hidden]) .verdict').getByText("Up to date:").waitFor();
    await owner.locator(".record-detail:not([hidden])").getByRole("link", { name: "Its full history" }).click();
    await owner.getByRole("heading", { name: "Why contact contact-2 is as it is", level: 1 }).waitFor();
    await owner.locator('section[data-verdict="current"][data-present="true"]').waitFor();
    expect(await owner.locator('section.lineage [data-fact="Times written"]').textContent()).toBe("2");
    // The record's updated_at and the source's, as <time>s in the owner's local time with UTC on hover.
    expect(await localTimesIn(owner.locator('section[data-verdict] [data-fact="Changed in your CRM at"]'))).toEqual(["2026-02-05T08:00:00.000Z"]);
    const lastWritten = await localTimesIn(owner.locator('section.lineage [data-fact="Last written"]'));
    expect(lastWritten).toHaveLength(2);
    expect(lastWritten[1]).toBe("2026-02-05T08:00:00.000Z");
    // A stage is found by its pipeline's id and its own.
    await owner.getByLabel("Kind of record").selectOption("stages");
    await owner.getByLabel("Its id (exactly as in your CRM)").fill("stage-won");
    await owner.getByLabel("Its pipeline's id").fill("pipeline-1");
    await owner.getByRole("button", { name: "Explain" }).click();
    await owner.getByRole("heading", { name: "Why stage stage-won is as it is", level: 1 }).waitFor();
    await owner.locator('section[data-verdict="current"][data-present="true"]').waitFor();
    expect(JSON.parse((await owner.getByLabel("Stored record, JSON").textContent()) ?? "null")).toMatchObject({ id: "stage-won", kind: "won" });
  });

  it("an audit cannot start while a sync of the connection runs: the page says which run is going on", async () => {
    const hold = holdLeads();
    await owner.goto(connectionUrl);
    await owner.getByRole("button", { name: "Sync now" }).click();
    await owner.getByRole("heading", { name: "Sync run", level: 1 }).waitFor();
    const runUrl = owner.url();
    await hold.reached;
    await owner.goto(`${connectionUrl}/audits`);
    await owner.getByRole("button", { name: "Start an audit" }).click();
    const runId = decodeURIComponent(runUrl.slice(runUrl.lastIndexOf("/") + 1));
    await owner.locator('[data-test="audit-start-status"]', { hasText: `Not now: an audit cannot start now: sync run ${runId} is going on` }).waitFor();
    expect(await owner.getByRole("button", { name: "Start an audit" }).isEnabled()).toBe(true);
    // The API's 409 is the answer this step provokes on purpose.
    const taken = problems.take();
    expect(taken.filter((problem) => problem.startsWith("409: POST ")).length).toBe(1);
    expect(taken.filter((problem) => !problem.startsWith("409: POST ") && !problem.includes("409 (Conflict)"))).toEqual([]);
    hold.release();
    await owner.goto(runUrl);
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
  });

  it("an audit is started, watched while it runs, and shows what it healed by cause with sample ids", async () => {
    const hold = holdLeads();
    await owner.goto(`${connectionUrl}/audits`);
    await owner.getByText("No audit has run yet.").waitFor();
    // By keyboard.
    await owner.getByRole("button", { name: "Start an audit" }).focus();
    await owner.keyboard.press("Enter");
    await owner.getByRole("heading", { name: "Audit", level: 1 }).waitFor();
    await hold.reached;
    data.leads!.push(leadRecord({ id: NEW_LEAD, name: "Created during the audit", updated_at: "2026-02-04T09:00:00Z" }));
    await owner.locator('.audit-status[data-status="running"]').waitFor();
    await owner.locator('tr[data-entity="contacts"] .badge', { hasText: "succeeded" }).waitFor();
    expect(await owner.locator('tr[data-entity="leads"] .badge').textContent()).toBe("running");
    hold.release();
    await owner.locator('.audit-status[data-status="succeeded"]').waitFor();
    // "started …" is a <time>: local, UTC on hover.
    expect(await localTimesIn(owner.locator(".audit-status"))).toHaveLength(1);
    const cell = (entity: string, cause: string) => owner.locator(`tr[data-entity="${entity}"] td[data-cause="${cause}"]`).textContent();
    expect(await cell("leads", "missed")).toBe("1");
    expect(await cell("contacts", "changed_without_advancing")).toBe("1");
    expect(await cell("tasks", "missed")).toBe("0");
    // The lead created while the audit read is counted apart, never as healed.
    expect(await owner.locator('tr[data-entity="leads"] td[data-count="ahead_of_watermark"]').textContent()).toBe("1");
    expect(await owner.locator(".healed-total").textContent()).toBe(
      "Healed 2 records: 1 missed (the service did not have it), 1 changed without its change time moving. 1 record changed after the last sync: nothing to heal, the next sync brings it.",
    );
    // Owner words: no field name on the screen.
    expect(await owner.locator("main").textContent()).not.toMatch(/updated_at|watermark|ahead_of_watermark|changed_without_advancing/);
    const samples = owner.getByRole("region", { name: "Healed records: samples" });
    expect(await samples.locator('[data-entity="leads"]').getByRole("link").allTextContents()).toEqual([LATE_LEAD]);
    expect(await samples.locator('[data-entity="contacts"]').getByRole("link").allTextContents()).toEqual(["contact-1"]);
    await expectAccessible(owner, "a finished audit");
    await shot(owner, "audit");

    // The list shows it with what it healed.
    await owner.goto(`${connectionUrl}/audits`);
    await owner.getByRole("list", { name: "Audits" }).locator("li", { hasText: /succeeded · .* · healed 2$/ }).waitFor();
    await expectAccessible(owner, "the audits list");
  });

  it("a record changed after the last sync is explained as such: not stored yet, and the next sync brings it", async () => {
    await owner.goto(`${connectionUrl}/explain/leads/${NEW_LEAD}`);
    const verdict = owner.locator('section[data-verdict="ahead-of-watermark"][data-present="false"]');
    await verdict.waitFor();
    expect(await verdict.locator("p.verdict").textContent()).toBe("Your CRM changed it after the last sync: the next sync brings it.");
    expect(await localTimesIn(verdict.locator('[data-fact="Changed after the last sync"]'))).toEqual(["2026-02-04T09:00:00.000Z"]);
    await expectAccessible(owner, "a record changed after the last sync");
  });

  it("a healed record's explanation says healed-by-audit, links the audit, and its lineage names it", async () => {
    await owner.goto(`${connectionUrl}/explain/leads/${LATE_LEAD}`);
    const verdict = owner.locator('section[data-verdict="healed-by-audit"]');
    await verdict.waitFor();
    expect(await verdict.locator("p.verdict").textContent()).toBe("A sync missed it; an audit found it in your CRM and stored it.");
    const healed = await owner.locator('section.lineage [data-fact="Repaired by an audit"] a').getAttribute("href");
    expect(healed).toMatch(/\/audits\/audit-/);
    expect(await verdict.locator('[data-fact="Repaired by an audit"] a').getAttribute("href")).toBe(healed);
    // The healed updated_at against the watermark, and the last audit's start: <time>s, local with UTC on hover.
    const healedTimes = await localTimesIn(verdict.locator('[data-fact="Repaired by an audit"]'));
    expect(healedTimes[0]).toBe("2026-01-01T00:00:00.000Z");
    expect(healedTimes).toHaveLength(2);
    expect(await localTimesIn(verdict.locator('[data-fact="Last audit"]'))).toHaveLength(1);
    await expectAccessible(owner, "a healed record's explanation");
  });

  it("the funnel is drawn as a funnel per pipeline, with won, lost and revenue, its table on demand", async () => {
    await owner.goto(`${connectionUrl}/funnel`);
    const sales = owner.getByRole("region", { name: "Pipeline Sales" });
    const figure = sales.locator('figure[data-chart="funnel"]');
    await figure.waitFor();
    // 120 leads (the late one healed in: 121): every tenth of the first 119 won at 1000, every tenth lost.
    expect(await figure.locator("figcaption").textContent()).toBe("Leads that reached each stage of Sales");
    // A won lead has passed the open stage before it: New is reached by its 97 and the 12 won.
    expect(await figure.locator("canvas").getAttribute("aria-label")).toBe("Funnel of Sales: New 109, Won 12.");
    expect(await sales.locator('[data-test="won"]').textContent()).toBe("12");
    expect(await sales.locator('[data-test="lost"]').textContent()).toBe("12");
    expect(await sales.locator('[data-test="revenue-won"]').textContent()).toBe("12,000, in your CRM's currency (the service does not store it)");
    await expectDrawn(figure);
    const table = await openTableByKeyboard(figure);
    expect(await table.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-stage")))).toEqual(["stage-new", "stage-won", "stage-lost"]);
    // The other pipeline's funnel is drawn too (a card built before the page held it keeps its chart).
    const partners = owner.getByRole("region", { name: "Pipeline Partners" }).locator('figure[data-chart="funnel"]');
    expect(await partners.locator("canvas").getAttribute("aria-label")).toBe("Funnel of Partners: Intro 0.");
    await expectDrawn(partners);
    await expectAccessible(owner, "the funnel with its table");
    await shot(owner, "funnel-chart");
  });

  it("the data-trust screens are readable at 360 px wide: no sideways scrolling", async () => {
    await owner.setViewportSize({ width: 360, height: 780 });
    const screens: [string, string][] = [
      [`${connectionUrl}/quality`, 'figure[data-chart="quality-trend"] canvas'],
      [`${connectionUrl}/explain/leads/${UNPARSEABLE_LEAD}`, "section.lineage"],
      [`${connectionUrl}/audits`, '[aria-label="Audits"] li'],
      [`${connectionUrl}/funnel`, 'figure[data-chart="funnel"] canvas'],
      [`${connectionUrl}/runs`, 'figure[data-chart="runs"] canvas'],
    ];
    for (const [url, ready] of screens) {
      await owner.goto(url);
      await owner.locator(ready).first().waitFor();
      expect(await owner.evaluate<number>("document.documentElement.scrollWidth"), url).toBeLessThanOrEqual(360);
    }
    await owner.locator('[data-test="run-history"] a').last().click();
    await owner.locator('.run-status[data-status="succeeded"]').waitFor();
    expect(await owner.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(360);
    await owner.setViewportSize({ width: 1280, height: 800 });
  });

  it("no screen logged a console error or a CSP violation under the page's own CSP (and the check sees one when there is one)", async () => {
    expect(problems.take()).toEqual([]);
    expect(await owner.evaluate<string[]>("window.cspViolations")).toEqual([]);
    // The check works: an inline style attribute, which the CSP blocks, is reported.
    await owner.evaluate(`document.body.insertAdjacentHTML("beforeend", '<span style="color: red">probe</span>')`);
    // The event is queued as a task: the page's next evaluation runs after it.
    await owner.waitForFunction("window.cspViolations.length > 0");
    expect(await owner.evaluate<string[]>("window.cspViolations")).toEqual(["style-src-attr inline"]);
  });
});
