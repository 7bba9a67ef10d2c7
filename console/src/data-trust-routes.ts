import { auditsView, auditView } from "./audits-view";
import { explainView } from "./explain-view";
import { qualityView } from "./quality-view";

/**
 * The data-trust screens under a connection's hash route:
 *   #/connections/<id>/quality
 *   #/connections/<id>/explain[/<collection>/<record id>[/<pipeline id, for a stage>]]
 *   #/connections/<id>/audits[/<audit id>]
 * `parts` are the route's decoded segments. Returns null when the route is not one of them, else the view's stop function (if any).
 */
export async function dataTrustRoute(
  outlet: HTMLElement,
  parts: readonly string[],
  navigate: (hash: string) => void,
): Promise<{ readonly stop?: () => void } | null> {
  const [root, id, screen, first, second, third] = parts;
  if (root !== "connections" || id === undefined) return null;
  if (screen === "quality") {
    await qualityView(outlet, id);
    return {};
  }
  if (screen === "explain") {
    await explainView(outlet, id, first !== undefined && second !== undefined ? { collection: first, recordId: second, ...(third ? { pipelineId: third } : {}) } : null);
    return {};
  }
  if (screen === "audits" && first !== undefined) return { stop: auditView(outlet, id, first) };
  if (screen === "audits") {
    await auditsView(outlet, id, navigate);
    return {};
  }
  return null;
}
