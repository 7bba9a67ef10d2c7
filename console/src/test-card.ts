import { api, connectionPath, type TestResult } from "./api";
import { h } from "./dom";
import { testResultView } from "./test-result";
import { titledCard } from "./titled-card";

/** Test the stored connection: a live request for the first page of pipelines with the stored token. */
export function testCard(connectionId: string): HTMLElement {
  const result = h("div", { class: "test-result", role: "status", "aria-live": "polite" });
  const button = h("button", { type: "button" }, "Test connection");
  button.addEventListener("click", async () => {
    button.disabled = true;
    result.replaceChildren(h("p", null, "Calling your CRM…"));
    try {
      result.replaceChildren(...testResultView(await api<TestResult>("POST", `${connectionPath(connectionId)}/test`)));
    } catch (error) {
      result.replaceChildren(h("p", { class: "bad" }, (error as Error).message));
    } finally {
      button.disabled = false;
    }
  });
  return titledCard(
    { id: "test-title", title: "Test the connection" },
    h("p", null, "Asks your CRM for its first page of pipelines with the stored token, as a sync would."),
    button,
    result,
  );
}
