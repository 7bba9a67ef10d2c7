import middy, { type MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import * as v from "valibot";
import { ChangesExpiredError, InvalidCursorError } from "../../domain/core/errors";
import type { Logger } from "../../domain/core/ports/logger";
import { OWNER_ROLE, SessionClaimsSchema } from "../../domain/onboarding/auth/session-claims";
import type { ApiDeps } from "../../domain/analytics/analytics-deps";
import { InvalidFieldError, NotFoundError, NotOwnerError, OnboardingError, UnauthenticatedError } from "../../domain/onboarding/onboarding-errors";
import { RETRY_AFTER_SECONDS, statusOf } from "./error-status";
import { openApiDocument } from "./openapi";
import { publicDocumentOf } from "./public-documents";
import { ROUTES, type Route } from "./routes";

export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type ApiResult = APIGatewayProxyStructuredResultV2;

const JSON_HEADERS = { "content-type": "application/json" };
const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult => ({
  statusCode,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/** The workspace session from the JWT authorizer's claims (AWS), or the local server's identical field. */
function sessionOf(event: ApiEvent) {
  const result = v.safeParse(SessionClaimsSchema, event.requestContext.authorizer?.jwt?.claims ?? {});
  if (!result.success) throw new UnauthenticatedError("the session token carries no valid workspace, user and role");
  return result.output;
}

/**
 * One Lambda handler for every onboarding route: API Gateway (HTTP API, payload
 * 2.0) in AWS, the local runtime's HTTP server locally, the same event shape.
 * It finds the route by routeKey, admits only the workspace owner, calls the
 * route's one operation, and shapes the response.
 */
export function makeApiHandler(deps: ApiDeps) {
  const routes = new Map<string, Route>(ROUTES.map((route) => [route.routeKey, route]));

  const handle = async (event: ApiEvent): Promise<ApiResult> => {
    const publicDocument = publicDocumentOf(event.routeKey);
    if (publicDocument !== undefined) return json(200, publicDocument());
    const route = routes.get(event.routeKey);
    if (route === undefined) throw new NotFoundError(`no route ${event.routeKey}`);
    const session = sessionOf(event);
    // An owner route admits the owner only, before anything else: ROP and MOP get 403 whatever the id.
    if ((route.access ?? "owner") === "owner" && session.role !== OWNER_ROLE) throw new NotOwnerError();
    const result = await route.handle(deps, {
      account: session.businessAccountId,
      session,
      path: (event.pathParameters ?? {}) as Record<string, string>,
      query: event.queryStringParameters ?? {},
      body: event.isBase64Encoded && event.body ? Buffer.from(event.body, "base64").toString("utf8") : event.body,
    });
    return route.successStatus === 204 ? { statusCode: 204 } : json(route.successStatus, result);
  };

  // middy runs onError middlewares last-used first: errorResponses must run before accessLog reads the status.
  return middy<ApiEvent, ApiResult>(handle).use(accessLog(deps.logger)).use(errorResponses(deps.logger));
}

/** Typed errors become their status and a JSON body naming code, message and, for bad input, field and rule. */
function errorResponses(logger: Logger): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    onError: async (request) => {
      const error = request.error;
      const status = statusOf(error);
      if (status === 500) {
        // Unexpected: log the name and message (never the event: its body may hold a source token).
        logger.error("unexpected error", {
          route: request.event.routeKey,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
        request.response = json(500, { error: { code: "internal_error", message: "internal error" } });
        return;
      }
      if (status === 503) {
        // Busy, not broken: the name says which (throttled store, queue); the message may quote a key, so it is not logged.
        logger.warn("dependency busy", { route: request.event.routeKey, error: error instanceof Error ? error.name : String(error) });
        request.response = json(503, { error: errorBody(error) }, { "retry-after": String(RETRY_AFTER_SECONDS) });
        return;
      }
      request.response = json(status, { error: errorBody(error) });
    },
  };
}

function errorBody(error: unknown): Record<string, unknown> {
  if (error instanceof InvalidFieldError) {
    return { code: error.code, message: error.message, field: error.field, rule: error.rule, errors: error.problems };
  }
  if (error instanceof OnboardingError) return { code: error.code, message: error.message };
  if (error instanceof InvalidCursorError) {
    const problem = { field: "cursor", rule: "is not a cursor this API issued" };
    return { code: "invalid_field", message: "cursor: is not a cursor this API issued", ...problem, errors: [problem] };
  }
  if (error instanceof ChangesExpiredError) return { code: "gone", message: error.message };
  // Only 503s reach here (500s have their own body).
  return { code: "unavailable", message: `the service is briefly unavailable; try again in ${RETRY_AFTER_SECONDS} seconds` };
}

/** One line per request: route, status, time, workspace. Never headers or bodies (they carry tokens). */
function accessLog(logger: Logger): MiddlewareObj<ApiEvent, ApiResult> {
  const started = new WeakMap<object, number>();
  const log = (request: { event: ApiEvent; response: ApiResult | null }) => {
    const claims = request.event.requestContext.authorizer?.jwt?.claims;
    logger.info("api request", {
      route: request.event.routeKey,
      status: request.response?.statusCode ?? 500,
      ms: Math.round(performance.now() - (started.get(request.event) ?? performance.now())),
      business_account_id: claims?.["business_account_id"] ?? null,
    });
  };
  return {
    before: async (request) => void started.set(request.event, performance.now()),
    after: async (request) => log(request),
    // Used first, so its onError runs after errorResponses' (middy's reverse order): the response is set.
    onError: async (request) => log(request),
  };
}
