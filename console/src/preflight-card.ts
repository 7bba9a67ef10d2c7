import { api, connectionPath, type PreflightFinding, type PreflightRun } from "./api";
import { h } from "./dom";
import { titledCard } from "./titled-card";

/** How often a running check's report is read again (as the live sync view does). */
const POLL_MS = 500;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "conforms", or the error and warning counts; a run that could not finish says so instead. */
export function preflightSummary(run: PreflightRun): string {
  const errors = run.findings.filter((finding) => finding.severity === "error").length;
  const warnings = run.findings.length - errors;
  const counts = `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
  if (run.status === "running") {
    const at = run.progress === null ? "" : ` (${run.progress.endpoint}, page ${run.progress.page})`;
    return `Checking${at}… ${counts} so far`;
  }
  if (run.status === "failed") return `The check could not run to its end · ${counts} found before it stopped`;
  return run.conforms ? `Conforms: ${plural(run.checked.length, "rule")} checked${warnings > 0 ? `, ${plural(warnings, "warning")}` : ""}` : counts;
}

/** Findings by endpoint, in the order the kit reported them. */
function byEndpoint(findings: readonly PreflightFinding[]): Map<string, PreflightFinding[]> {
  const groups = new Map<string, PreflightFinding[]>();
  for (const finding of findings) groups.set(finding.endpoint, [...(groups.get(finding.endpoint) ?? []), finding]);
  return groups;
}

/**
 * The owner's "Check the source API": starts the service's conformance run on
 * the stored token and shows its report, read again while it runs. Polling
 * stops when the run ends or the card leaves the page.
 */
export function preflightCard(connectionId: string): HTMLElement {
  const summary = h("p", { class: "preflight-summary", role: "status", "aria-live": "polite" });
  const report = h("div", { class: "preflight-report" });
  const button = h("button", { type: "button" }, "Check the source API");
  const card = titledCard(
    { id: "preflight-title", title: "Source API check" },
    h("p", null, "Reads your CRM's API with the stored token and checks it against the rules a sync relies on. Each finding says how to fix it."),
    button,
    summary,
    report,
  );

  const show = (run: PreflightRun) => {
    summary.textContent = preflightSummary(run);
    summary.dataset["status"] = run.status;
    summary.className = `preflight-summary ${run.status === "running" ? "" : run.status === "succeeded" && run.conforms ? "ok" : "bad"}`;
    report.replaceChildren(
      run.error === null ? "" : h("p", { class: "bad", "data-test": "preflight-error" }, run.error),
      ...[...byEndpoint(run.findings)].map(([endpoint, findings]) =>
        h(
          "section",
          { class: "preflight-endpoint", "aria-label": `Findings at ${endpoint}`, "data-endpoint": endpoint },
          h("h3", null, endpoint),
          h(
            "ul",
            { class: "findings" },
            findings.map((finding) =>
              h(
                "li",
                { "data-rule": finding.rule },
                h("span", { class: `badge severity-${finding.severity}` }, finding.severity),
                " ",
                h("code", null, finding.rule),
                h("p", { class: "finding-detail" }, finding.detail),
                h("p", { class: "hint" }, `Spec: ${finding.spec} · ${finding.request}`),
              ),
            ),
          ),
        ),
      ),
    );
  };

  const poll = async (path: string) => {
    if (!card.isConnected) return;
    try {
      const run = await api<PreflightRun>("GET", path);
      if (!card.isConnected) return;
      show(run);
      if (run.status === "running") setTimeout(() => void poll(path), POLL_MS);
      else button.disabled = false;
    } catch (error) {
      summary.textContent = (error as Error).message;
      button.disabled = false;
    }
  };

  button.addEventListener("click", async () => {
    button.disabled = true;
    report.replaceChildren();
    summary.textContent = "Starting the check…";
    try {
      const run = await api<PreflightRun>("POST", `${connectionPath(connectionId)}/preflight`);
      show(run);
      await poll(`${connectionPath(connectionId)}/preflight/${encodeURIComponent(run.id)}`);
    } catch (error) {
      summary.textContent = (error as Error).message;
      button.disabled = false;
    }
  });
  return card;
}
