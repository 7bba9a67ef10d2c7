import { getManagerFigures, getManagerRecord, listAnalyticsConnections, listManagerRecords } from "../../domain/analytics/analytics-operations";
import { listManagers, setManagerLink, unlinkManager } from "../../domain/analytics/manager-link-operations";
import { API_PREFIX, param, type Route } from "./route";

const CONNECTIONS = `${API_PREFIX}/crm/custom/connections`;
const ANALYTICS = `${API_PREFIX}/analytics/connections`;

/** The owner's routes of the managers' links: owner only, tenant-scoped, like every onboarding route (docs/onboarding-api.md). */
export const MANAGER_LINK_ROUTES: readonly Route[] = [
  {
    routeKey: `GET ${CONNECTIONS}/{id}/managers`,
    operationId: "listManagers",
    summary: "The source users of the connection, each with its link to a workspace member and a summary of its figures",
    successStatus: 200,
    handle: (deps, request) => listManagers(deps, request.account, param(request, "id")),
  },
  {
    routeKey: `PUT ${CONNECTIONS}/{id}/managers/{sourceUserId}`,
    operationId: "linkManager",
    summary: "Link a source user to a member ({ user_id: sub }), or hand it back to email matching ({ user_id: null })",
    successStatus: 200,
    handle: (deps, request) => setManagerLink(deps, request.account, param(request, "id"), param(request, "sourceUserId"), request.body),
  },
  {
    routeKey: `DELETE ${CONNECTIONS}/{id}/managers/{sourceUserId}`,
    operationId: "unlinkManager",
    summary: "Unlink a source user: no member sees it as theirs, and no email links it again",
    successStatus: 200,
    handle: (deps, request) => unlinkManager(deps, request.account, param(request, "id"), param(request, "sourceUserId")),
  },
];

/** Read-only routes for every role, scoped by who asks (docs/analytics-api.md). */
export const ANALYTICS_ROUTES: readonly Route[] = [
  {
    routeKey: `GET ${ANALYTICS}`,
    operationId: "listAnalyticsConnections",
    summary: "The workspace's connections (id, name, data as of) and the caller's link on each",
    successStatus: 200,
    access: "member",
    handle: (deps, request) => listAnalyticsConnections(deps, request.session),
  },
  {
    routeKey: `GET ${ANALYTICS}/{id}/managers`,
    operationId: "getManagerFigures",
    summary: "Per-manager figures and coaching signals for a period (from, to: UTC dates); a MOP gets their own row",
    successStatus: 200,
    access: "member",
    handle: (deps, request) => getManagerFigures(deps, request.session, param(request, "id"), request.query),
  },
  {
    routeKey: `GET ${ANALYTICS}/{id}/{collection}`,
    operationId: "listManagerRecords",
    summary: "A manager's leads, tasks or calls, paged like the records route; a MOP gets their own",
    successStatus: 200,
    access: "member",
    handle: (deps, request) => listManagerRecords(deps, request.session, param(request, "id"), param(request, "collection"), request.query),
  },
  {
    routeKey: `GET ${ANALYTICS}/{id}/{collection}/{recordId}`,
    operationId: "getManagerRecord",
    summary: "One lead, task or call; a MOP gets a 404 for another manager's",
    successStatus: 200,
    access: "member",
    handle: (deps, request) => getManagerRecord(deps, request.session, param(request, "id"), param(request, "collection"), param(request, "recordId")),
  },
];
