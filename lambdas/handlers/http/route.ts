import { API_BASE_PATH } from "../../domain/core/api-paths";
import type { Session } from "../../domain/onboarding/auth/session-claims";
import type { ApiDeps } from "../../domain/analytics/analytics-deps";
import type { RecordRef } from "../../domain/onboarding/record-operations";

export const API_PREFIX = API_BASE_PATH;

/** What a route's operation gets: the caller's workspace and session, and the request's parts. */
export interface RouteRequest {
  readonly account: string;
  /** Who is asking (the JWT authorizer's claims): the analytics routes scope by it. */
  readonly session: Session;
  readonly path: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: string | undefined;
}

/** Who may call a route: `owner` (the onboarding API, ROP and MOP get 403), or `member` (every role; the operation scopes what it shows). */
export type RouteAccess = "owner" | "member";

export interface Route {
  /** API Gateway's route key, `METHOD /path/{param}`: CDK, the local server and OpenAPI all read it from here. */
  readonly routeKey: string;
  readonly operationId: string;
  readonly summary: string;
  readonly successStatus: number;
  /** Absent: `owner`. */
  readonly access?: RouteAccess;
  /** True for the one route whose function calls the source (and so may decrypt tokens). */
  readonly callsSource?: boolean;
  readonly handle: (deps: ApiDeps, request: RouteRequest) => Promise<unknown>;
}

export const param = (request: RouteRequest, name: string): string => request.path[name] ?? "";

/** The record a `…/{id}/records/{entity}/{recordId}` route names. */
export const recordRef = (request: RouteRequest): RecordRef => ({
  account: request.account,
  connectionId: param(request, "id"),
  entity: param(request, "entity"),
  recordId: param(request, "recordId"),
  query: request.query,
});
