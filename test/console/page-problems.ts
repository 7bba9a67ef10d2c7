import type { Page } from "playwright-core";

/**
 * Collects what a screen must never show: a console error (an uncaught exception included) and a request that
 * failed or was answered 4xx/5xx. Start it before the page loads; `take()` returns what came since the last take.
 * A step that provokes an error answer on purpose (a 422 shown under a field) takes it and checks it itself.
 */
export function watchPageProblems(page: Page): { take(): string[] } {
  let problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.method()} ${request.url()} (${request.failure()?.errorText ?? "?"})`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return {
    take: () => {
      const taken = problems;
      problems = [];
      return taken;
    },
  };
}
