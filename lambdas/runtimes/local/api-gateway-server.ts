import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "aws-lambda";
import {
  bearerToken,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  toAuthorizerClaims,
  verifySessionToken,
  type LocalSigningKey,
} from "./local-token-issuer";
import type { ApiEvent, ApiResult } from "../../handlers/http/api-handler";
import { PUBLIC_ROUTE_KEYS, ROUTES } from "../../handlers/http/routes";
import { serveConsoleAsset } from "./console-assets";
import { serveDevSignIn } from "./dev-sign-in";
import { createOidcTokenVerifier, type LocalOidcSettings } from "./oidc-token-verifier";
import { serveRuntimeConfig } from "./runtime-config-route";

/**
 * Request bodies above this are refused with 413 by the local server. A limit of its own, not API Gateway's: the
 * HTTP API takes 10 MB and a Lambda invocation 6 MB (docs/onboarding-api.md, Limits on input).
 */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** The onboarding API's Lambda handler, as API Gateway calls it. */
export type LambdaHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** The API on loopback. */
export interface LocalApiServer {
  /** e.g. http://127.0.0.1:3000 */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

interface CompiledRoute {
  readonly routeKey: string;
  readonly method: string;
  readonly pattern: RegExp;
  readonly params: readonly string[];
  /** Public routes skip the JWT check (the OpenAPI document). */
  readonly public: boolean;
}

function compile(routeKey: string, isPublic: boolean): CompiledRoute {
  const [method = "", path = ""] = routeKey.split(" ");
  const params: string[] = [];
  // Route keys hold only literal segments and {param} segments, as API Gateway's do.
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_, name: string) => {
      params.push(name);
      return "([^/]+)";
    })}$`,
  );
  return { routeKey, method, pattern, params, public: isPublic };
}

const ROUTE_TABLE: readonly CompiledRoute[] = [
  ...PUBLIC_ROUTE_KEYS.map((routeKey) => compile(routeKey, true)),
  ...ROUTES.map((route) => compile(route.routeKey, false)),
];

/**
 * API Gateway (HTTP API, payload 2.0, JWT authorizer) on one machine: matches
 * the same route keys, verifies the owner session token as the authorizer
 * would (ES256 pinned, issuer, audience, expiry), and hands the Lambda handler
 * the same event, claims in requestContext.authorizer.jwt.claims.
 */
export async function startApiGatewayServer(options: {
  readonly port: number;
  readonly host?: string;
  readonly handler: LambdaHandler;
  readonly signingKey: LocalSigningKey;
  /** An outside OIDC issuer whose tokens are accepted too; the console then signs in there and offers no dev sign-in. */
  readonly oidc?: LocalOidcSettings;
}): Promise<LocalApiServer> {
  const verifyOidc = options.oidc === undefined ? undefined : createOidcTokenVerifier(options.oidc);
  const server = createServer((request, response) => {
    serve(request, response, { ...options, verifyOidc }).catch(() => {
      if (!response.headersSent) send(response, 500, { message: "Internal Server Error" });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: {
    readonly handler: LambdaHandler;
    readonly signingKey: LocalSigningKey;
    readonly oidc?: LocalOidcSettings;
    readonly verifyOidc: ((token: string) => Promise<Record<string, unknown>>) | undefined;
  },
): Promise<void> {
  const url = URL.canParse(request.url ?? "/", "http://localhost") ? new URL(request.url ?? "/", "http://localhost") : null;
  if (url === null) return send(response, 400, { message: "Bad Request" });
  // The owner's console and its development sign-in share the API's origin locally (no CORS); neither is in AWS.
  if (await serveConsoleAsset(request, response, undefined, options.oidc?.issuer)) return;
  if (serveRuntimeConfig(request, response, options.oidc)) return;
  // With an OIDC issuer configured the console signs in there only: the dev sign-in is not routed at all.
  if (options.oidc === undefined && (await serveDevSignIn(request, response, options.signingKey))) return;
  const method = request.method ?? "GET";
  let match: { route: CompiledRoute; values: string[] } | undefined;
  for (const route of ROUTE_TABLE) {
    const found = route.method === method ? route.pattern.exec(url.pathname) : null;
    if (found) {
      match = { route, values: found.slice(1) };
      break;
    }
  }
  // API Gateway's own answers, before any Lambda runs.
  if (!match) return send(response, 404, { message: "Not Found" });
  // A malformed percent-escape (`%`, `%zz`, a cut UTF-8 sequence) names no resource: the request is bad, not the server.
  const pathParameters = decodePathParameters(match.route.params, match.values);
  if (pathParameters === null) return send(response, 400, { message: "Bad Request" });
  const body = await readBody(request);
  // Closed: a client sending that much is not one to keep a connection open for.
  if (body === null) return send(response, 413, { message: "Request Entity Too Large" }, { connection: "close" });

  let claims: Record<string, string> | undefined;
  if (!match.route.public) {
    const token = bearerToken(request.headers.authorization);
    try {
      const payload = await verifySessionToken(token, {
        issuer: LOCAL_ISSUER,
        audience: LOCAL_AUDIENCE,
        key: options.signingKey.publicKey,
      }).catch((error: unknown) => {
        // `npm run token` keeps working beside the OIDC issuer; a token neither accepts is a 401.
        if (options.verifyOidc === undefined || token === undefined) throw error;
        return options.verifyOidc(token);
      });
      claims = toAuthorizerClaims(payload);
    } catch {
      return send(response, 401, { message: "Unauthorized" });
    }
  }

  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(",") : (value ?? "")]),
  );
  const query = Object.fromEntries(url.searchParams.entries());
  const event = {
    version: "2.0",
    routeKey: match.route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(match.route.params.length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: headers["host"] ?? "localhost",
      domainPrefix: "local",
      http: { method, path: url.pathname, protocol: "HTTP/1.1", sourceIp: request.socket.remoteAddress ?? "", userAgent: headers["user-agent"] ?? "" },
      requestId: randomUUID(),
      routeKey: match.route.routeKey,
      stage: "$default",
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
      authorizer: claims ? { principalId: "", integrationLatency: 0, jwt: { claims, scopes: [] } } : undefined,
    },
    ...(body.length > 0 ? { body: body.toString("utf8") } : {}),
    isBase64Encoded: false,
  } as unknown as ApiEvent;

  const result = await options.handler(event, { awsRequestId: event.requestContext.requestId } as Context);
  response.writeHead(result.statusCode ?? 200, (result.headers ?? {}) as Record<string, string>);
  response.end(result.body ?? "");
}

/** Each path parameter percent-decoded, as API Gateway hands them over; null if one is not valid UTF-8 percent-encoding. */
function decodePathParameters(names: readonly string[], values: readonly string[]): Record<string, string> | null {
  const decoded: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    try {
      decoded[name] = decodeURIComponent(values[i] ?? "");
    } catch (error) {
      if (error instanceof URIError) return null;
      throw error;
    }
  }
  return decoded;
}

/**
 * The whole body, or null if it is over MAX_REQUEST_BODY_BYTES. An oversized
 * body is still read to its end (and dropped): a server that answers and
 * closes with unread bytes makes the kernel reset the connection, and the
 * client may lose the 413. Node's requestTimeout bounds a body that never ends.
 */
async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_REQUEST_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_REQUEST_BODY_BYTES ? null : Buffer.concat(chunks);
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}
