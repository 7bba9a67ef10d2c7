import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  SignJWT,
  calculateJwkThumbprint,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";
import { SESSION_CLAIM, type SessionRole } from "../../domain/onboarding/auth/session-claims";

/**
 * The local identity provider: the twin of the OIDC issuer behind the HTTP
 * API's JWT authorizer in AWS.
 *
 * One ES256 key pair, stored as a private JWK (mode 0600) in
 * `<dataDir>/session-signing-key.jwk.json`, created on first use and reused
 * after, so `npm run token` and the local runtime (reading the same data dir)
 * agree on it. Tokens carry iss, aud, sub, business_account_id, role, iat and
 * exp, and `email` when one is given; verification pins the algorithm to ES256 and checks signature, issuer,
 * audience and expiry, as the authorizer does.
 */

export const LOCAL_ISSUER = "crm-integration-local";
export const LOCAL_AUDIENCE = "crm-integration-api";
/** The only algorithm signed and accepted locally (alg `none`, HS*, RS* are refused). */
export const SESSION_TOKEN_ALGORITHM = "ES256";
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 60 * 60;
export const SIGNING_KEY_FILE = "session-signing-key.jwk.json";

export interface LocalSigningKey {
  /** RFC 7638 thumbprint of the public key; the tokens' `kid` header. */
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** Public part only (kty, crv, x, y, kid, alg, use): safe to publish as a JWKS. */
  readonly publicJwk: JWK;
}

export interface IssueSessionTokenOptions {
  readonly key: LocalSigningKey;
  /** business_account_id */
  readonly account: string;
  readonly role: SessionRole;
  /** sub; defaults to `local-<role>` */
  readonly user?: string;
  /** The standard `email` claim, when given: what links a member to a CRM user with the same email. */
  readonly email?: string;
  /** defaults to DEFAULT_SESSION_TTL_SECONDS (12 h) */
  readonly ttlSeconds?: number;
  readonly issuer?: string;
  readonly audience?: string;
  /** iat; defaults to the current time */
  readonly now?: Date;
}

export interface VerifySessionTokenOptions {
  readonly issuer: string;
  readonly audience: string;
  /** The public key (LocalSigningKey.publicKey). */
  readonly key: CryptoKey;
  /** The time the token is checked at; defaults to now. */
  readonly currentDate?: Date;
}

/** The verified payload, as jose returns it (numbers stay numbers). */
export type SessionTokenClaims = JWTPayload;

export type SessionTokenInvalidReason =
  | "missing"
  | "malformed"
  | "alg not allowed"
  | "bad signature"
  | "expired"
  | "not yet valid"
  | "wrong issuer"
  | "wrong audience"
  | "missing claim";

/**
 * A session token that must get a 401. The message is short and never holds
 * the token; `name` is stable; `reason` says which check failed.
 */
export class SessionTokenInvalidError extends Error {
  override readonly name = "SessionTokenInvalidError";

  constructor(readonly reason: SessionTokenInvalidReason) {
    super(`session token rejected: ${reason}`);
  }
}

export function signingKeyPath(dataDir: string): string {
  return join(dataDir, SIGNING_KEY_FILE);
}

/**
 * Reads the key pair of `dataDir`, or creates it (data dir made with mode
 * 0700, key file mode 0600) when there is none. Creation is atomic (written
 * to a temporary file, hard-linked into place): of two processes creating at
 * once, both end up with the one that won. A file that is not an ES256
 * private JWK is refused, never overwritten.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<LocalSigningKey> {
  const path = signingKeyPath(dataDir);
  const existing = await readSigningKey(path);
  if (existing !== null) return existing;

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateKeyPair(SESSION_TOKEN_ALGORITHM, { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(privateJwk);
  const stored: JWK = { ...privateJwk, kid, alg: SESSION_TOKEN_ALGORITHM, use: "sig" };

  const temporary = `${path}.${randomBytes(8).toString("hex")}.tmp`;
  await writeFile(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  try {
    await link(temporary, path);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  const winner = await readSigningKey(path);
  if (winner === null) throw new Error(`signing key file ${path} vanished while being created`);
  return winner;
}

/** Signs a session token (header alg ES256 + kid, typ JWT). */
export async function issueSessionToken(options: IssueSessionTokenOptions): Promise<string> {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`ttlSeconds must be a positive whole number of seconds; got ${ttlSeconds}`);
  }
  if (options.account.length === 0) throw new TypeError("account must not be empty");
  const user = options.user ?? `local-${options.role.toLowerCase()}`;
  if (user.length === 0) throw new TypeError("user must not be empty");

  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({
    [SESSION_CLAIM.businessAccountId]: options.account,
    [SESSION_CLAIM.role]: options.role,
    ...(options.email === undefined ? {} : { [SESSION_CLAIM.email]: options.email }),
  })
    .setProtectedHeader({ alg: SESSION_TOKEN_ALGORITHM, kid: options.key.kid, typ: "JWT" })
    .setIssuer(options.issuer ?? LOCAL_ISSUER)
    .setAudience(options.audience ?? LOCAL_AUDIENCE)
    .setSubject(user)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(options.key.privateKey);
}

/**
 * Verifies a session token as the HTTP API JWT authorizer does: algorithm
 * pinned to ES256, signature, issuer, audience, exp (required) and nbf.
 * Returns the payload; throws SessionTokenInvalidError otherwise.
 */
export async function verifySessionToken(
  token: string | null | undefined,
  options: VerifySessionTokenOptions,
): Promise<SessionTokenClaims> {
  if (token === null || token === undefined || token.trim().length === 0) throw new SessionTokenInvalidError("missing");
  try {
    const { payload } = await jwtVerify(token, options.key, {
      algorithms: [SESSION_TOKEN_ALGORITHM],
      issuer: options.issuer,
      audience: options.audience,
      requiredClaims: ["exp"],
      ...(options.currentDate === undefined ? {} : { currentDate: options.currentDate }),
    });
    return payload;
  } catch (error) {
    // No cause attached: jose's errors carry the claims, which must not travel into logs.
    throw new SessionTokenInvalidError(rejectionReason(error));
  }
}

/**
 * The value of an `Authorization: Bearer <token>` header (scheme matched
 * case-insensitively), or undefined when there is none.
 */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
  return match?.[1];
}

/**
 * The claims as the HTTP API puts them in `requestContext.authorizer.jwt.claims`:
 * every value a string (numbers and booleans stringified, arrays as
 * `[a b]`), so local handlers see exactly what they see in AWS.
 */
export function toAuthorizerClaims(payload: SessionTokenClaims): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) claims[name] = `[${value.map(String).join(" ")}]`;
    else if (typeof value === "object") claims[name] = JSON.stringify(value);
    else claims[name] = String(value);
  }
  return claims;
}

function rejectionReason(error: unknown): SessionTokenInvalidReason {
  if (error instanceof errors.JOSEAlgNotAllowed) return "alg not allowed";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "bad signature";
  if (error instanceof errors.JWTExpired) return "expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return "missing claim";
    switch (error.claim) {
      case "iss":
        return "wrong issuer";
      case "aud":
        return "wrong audience";
      case "nbf":
      case "iat":
        return "not yet valid";
      default:
        return "malformed";
    }
  }
  return "malformed";
}

async function readSigningKey(path: string): Promise<LocalSigningKey | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  const refuse = (why: string) =>
    new Error(`signing key file ${path} ${why}: not an ES256 private JWK; move it away or point to another data dir`);
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw refuse("is not JSON");
  }
  if (typeof jwk !== "object" || jwk === null) throw refuse("is not a JSON object");
  if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw refuse("is not a P-256 EC key");
  if (typeof jwk.d !== "string" || typeof jwk.x !== "string" || typeof jwk.y !== "string") {
    throw refuse("lacks the private or public key parameters");
  }

  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateKey = await importJWK({ ...publicJwk, d: jwk.d }, SESSION_TOKEN_ALGORITHM);
  const publicKey = await importJWK(publicJwk, SESSION_TOKEN_ALGORITHM);
  if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array) throw refuse("is a symmetric key");
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: SESSION_TOKEN_ALGORITHM, use: "sig" } };
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
