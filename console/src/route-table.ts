import { auditsView, auditView } from "./audits-view";
import { connectionFrame, type Frame, type SectionId } from "./connection-frame";
import { connectionsView } from "./connections-view";
import { dataSection } from "./data-section";
import { explainView } from "./explain-view";
import { funnelView } from "./funnel-view";
import { newConnectionView } from "./new-connection-view";
import { qualityView } from "./quality-view";
import { recordsView } from "./records-view";
import { runView } from "./run-view";
import { runsSection } from "./runs-section";
import { settingsSection } from "./settings-section";
import { statusSection } from "./status-section";
import { managerView, myFiguresView, teamView } from "./team-view";

/** What a view gets: where to render, the route's named segments (decoded), and how to move on. */
export interface RouteContext {
  readonly outlet: HTMLElement;
  readonly params: Readonly<Record<string, string>>;
  readonly navigate: (hash: string) => void;
}
/** A view may hand back a stop function (a live poll to end when the owner leaves). */
export type View = (context: RouteContext) => Promise<(() => void) | void> | (() => void) | void;

/** A section of a connection's page, or a page under one: the connection's frame first, then the view in its body. */
const inFrame =
  (section: SectionId, view: (frame: Frame, context: RouteContext) => Promise<(() => void) | void> | (() => void) | void, subpage = true): View =>
  async (context) => {
    const frame = await connectionFrame(context.outlet, context.params["id"]!, section, { subpage });
    return frame === null ? undefined : view(frame, context);
  };

/**
 * Every screen's hash route, in one table: `:name` takes one segment. The first match wins; no match shows the list.
 * A new screen is one more row here.
 */
export const ROUTE_TABLE: readonly { readonly pattern: string; readonly view: View }[] = [
  { pattern: "connections", view: ({ outlet }) => connectionsView(outlet) },
  { pattern: "connections/new", view: ({ outlet, navigate }) => newConnectionView(outlet, (connection) => navigate(`#/connections/${encodeURIComponent(connection.id)}`)) },
  { pattern: "connections/:id", view: inFrame("status", (frame, { navigate }) => statusSection(frame, navigate), false) },
  { pattern: "connections/:id/runs", view: inFrame("runs", (frame) => runsSection(frame), false) },
  { pattern: "connections/:id/runs/:runId", view: inFrame("runs", (frame, { params }) => runView(frame.body, frame.connection.id, params["runId"]!)) },
  { pattern: "connections/:id/data", view: inFrame("data", (frame) => dataSection(frame), false) },
  { pattern: "connections/:id/records/:entity", view: inFrame("data", (frame, { params }) => recordsView(frame.body, frame.connection.id, params["entity"]!)) },
  // The funnel: each pipeline's card holds its velocity from stage history too (funnel-view.ts).
  { pattern: "connections/:id/funnel", view: inFrame("data", (frame) => funnelView(frame.body, frame.connection.id)) },
  { pattern: "connections/:id/quality", view: inFrame("data", (frame) => qualityView(frame.body, frame.connection.id)) },
  { pattern: "connections/:id/explain", view: inFrame("data", (frame) => explainView(frame.body, frame.connection.id, null)) },
  {
    pattern: "connections/:id/explain/:collection/:recordId",
    view: inFrame("data", (frame, { params }) => explainView(frame.body, frame.connection.id, { collection: params["collection"]!, recordId: params["recordId"]! })),
  },
  {
    pattern: "connections/:id/explain/:collection/:recordId/:pipelineId",
    view: inFrame("data", (frame, { params }) =>
      explainView(frame.body, frame.connection.id, { collection: params["collection"]!, recordId: params["recordId"]!, pipelineId: params["pipelineId"]! }),
    ),
  },
  { pattern: "connections/:id/audits", view: inFrame("data", (frame, { navigate }) => auditsView(frame.body, frame.connection.id, navigate)) },
  { pattern: "connections/:id/audits/:auditId", view: inFrame("data", (frame, { params }) => auditView(frame.body, frame.connection.id, params["auditId"]!)) },
  { pattern: "connections/:id/settings", view: inFrame("settings", (frame, { navigate }) => settingsSection(frame, navigate), false) },
  // The managers' screens: the Team and a manager's page (the owner and ROP; `~` is the leads of no manager), My figures (a MOP).
  { pattern: "team", view: ({ outlet, navigate }) => teamView(outlet, undefined, navigate) },
  { pattern: "team/:id", view: ({ outlet, params, navigate }) => teamView(outlet, params["id"], navigate) },
  { pattern: "team/:id/managers/:key", view: ({ outlet, params }) => managerView(outlet, params["id"]!, params["key"]!) },
  { pattern: "my", view: ({ outlet, navigate }) => myFiguresView(outlet, undefined, navigate) },
  { pattern: "my/:id", view: ({ outlet, params, navigate }) => myFiguresView(outlet, params["id"], navigate) },
];

/** The row a route's segments match, with its named segments; null when none does. */
export function matchRoute(parts: readonly string[]): { readonly view: View; readonly params: Record<string, string> } | null {
  for (const route of ROUTE_TABLE) {
    const pattern = route.pattern.split("/");
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((segment, index) => (segment.startsWith(":") ? ((params[segment.slice(1)] = parts[index]!), true) : segment === parts[index]))) return { view: route.view, params };
  }
  return null;
}
