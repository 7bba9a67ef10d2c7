import { hash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import * as v from "valibot";
import {
  DEFAULT_SESSION_TTL_SECONDS,
  issueSessionToken,
  type LocalSigningKey,
} from "./local-token-issuer";
import { SESSION_CLAIM, SESSION_ROLES, SessionClaimsSchema } from "../../domain/onboarding/auth/session-claims";

/** The local runtime's development sign-in; never offered in AWS (lib/ has no such route). */
export const DEV_SIGN_IN_PATH = "/dev/sign-in";
const MAX_SIGN_IN_BODY_BYTES = 4096;

/**
 * POST /dev/sign-in `{ "workspace", "role", "email"? }` → 200 `{ token, expires_in }`: a
 * session token minted exactly as `npm run token -- --account W --role R [--user U --email E]`
 * does (same key, issuer, audience, `sub` local-<role>, 12 h). With an email
 * (what links a MOP to the CRM user with that email), the token carries it and
 * `sub` is local-<role>-<8 hex of its sha256>, so two emails are two members. Answers only
 * callers on loopback, so a runtime bound to HOST=0.0.0.0 does not hand owner
 * tokens to the network. Returns false for any other path.
 */
export async function serveDevSignIn(
  request: IncomingMessage,
  response: ServerResponse,
  signingKey: LocalSigningKey,
): Promise<boolean> {
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  if (pathname !== DEV_SIGN_IN_PATH) return false;
  if (request.method !== "POST") {
    send(response, 405, { error: { code: "method_not_allowed", message: "use POST" } }, { allow: "POST" });
    return true;
  }
  if (!isLoopback(request.socket.remoteAddress)) {
    send(response, 403, { error: { code: "forbidden", message: "development sign-in answers only on this machine" } });
    return true;
  }
  // A JSON content type keeps a cross-site form post from minting a token in someone's browser.
  if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
    send(response, 415, { error: { code: "unsupported_media_type", message: "send application/json" } });
    return true;
  }
  const text = await readText(request);
  let body: unknown;
  try {
    body = text === null ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    send(response, 400, { error: { code: "malformed_body", message: "the request body must be a JSON object" } });
    return true;
  }
  const fields = body as Record<string, unknown>;
  const role = fields["role"];
  const email = typeof fields["email"] === "string" && fields["email"].trim() !== "" ? fields["email"].trim() : undefined;
  if (fields["email"] !== undefined && fields["email"] !== "" && (email === undefined || v.parse(SessionClaimsSchema, { sub: "x", business_account_id: "x", role: "owner", email }).email === null)) {
    const rule = "must be one line of at most 255 characters";
    send(response, 422, { error: { code: "invalid_field", message: `email: ${rule}`, field: "email", rule } });
    return true;
  }
  // The same claim rules `npm run token` checks, with the form's field names.
  const parsed = v.safeParse(SessionClaimsSchema, {
    [SESSION_CLAIM.businessAccountId]: typeof fields["workspace"] === "string" ? fields["workspace"].trim() : fields["workspace"],
    [SESSION_CLAIM.userId]: typeof role === "string" ? `local-${role.toLowerCase()}` : "local",
    [SESSION_CLAIM.role]: role,
  });
  if (!parsed.success) {
    const key = parsed.issues[0]?.path?.[0]?.key;
    const field = key === SESSION_CLAIM.role ? "role" : "workspace";
    const rule =
      field === "role"
        ? `must be one of ${SESSION_ROLES.join(", ")}`
        : fields["workspace"] === undefined || fields["workspace"] === ""
          ? "must not be empty"
          : (parsed.issues[0]?.message.replace(/^claim \S+ /, "") ?? "is invalid");
    send(response, 422, { error: { code: "invalid_field", message: `${field}: ${rule}`, field, rule } });
    return true;
  }
  const token = await issueSessionToken({
    key: signingKey,
    account: parsed.output.businessAccountId,
    role: parsed.output.role,
    ...(email === undefined ? {} : { email, user: `local-${parsed.output.role.toLowerCase()}-${hash("sha256", email.toLowerCase()).slice(0, 8)}` }),
  });
  send(response, 200, { token, expires_in: DEFAULT_SESSION_TTL_SECONDS }, { "cache-control": "no-store" });
  return true;
}

function isLoopback(address: string | undefined): boolean {
  return address === "::1" || /^(::ffff:)?127\./.test(address ?? "");
}

async function readText(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_SIGN_IN_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}
