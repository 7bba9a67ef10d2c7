import type { TestResult } from "./api";
import { h } from "./dom";

const yesNo = (value: boolean) => (value ? "yes" : "no");

/** What a test call found, in words: whether the CRM answered and took the token, its own detail, and the pipelines it returned. */
export function testResultView(result: TestResult): HTMLElement[] {
  const ok = result.reachable && result.authenticated;
  return [
    h("p", { class: ok ? "ok" : "bad" }, ok ? "Your CRM answered and accepted the token." : result.reachable ? "Your CRM answered, but the test did not succeed." : "Your CRM could not be reached."),
    h(
      "dl",
      { class: "facts", "aria-label": "Test result" },
      h("dt", null, "Reached"),
      h("dd", { "data-test": "reachable" }, yesNo(result.reachable)),
      h("dt", null, "Token accepted"),
      h("dd", { "data-test": "authenticated" }, yesNo(result.authenticated)),
      // The service's own sentence names the request and the status: for the CRM's developers, set apart as code.
      h("dt", null, "For your CRM's developers"),
      h("dd", null, h("code", { "data-test": "detail" }, result.detail)),
      h("dt", null, "Pipelines found"),
      h("dd", { "data-test": "pipelines-found" }, result.pipelines_found ?? "—"),
    ),
  ];
}
