import { createHmac } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT, decodeProtectedHeader, exportSPKI, generateKeyPair } from "jose";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  DEFAULT_SESSION_TTL_SECONDS,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  SessionTokenInvalidError,
  bearerToken,
  issueSessionToken,
  loadOrCreateSigningKey,
  signingKeyPath,
  toAuthorizerClaims,
  verifySessionToken,
  type LocalSigningKey,
  type SessionTokenInvalidReason,
} from "../../../lambdas/runtimes/local/local-token-issuer";
import { SessionClaimsSchema } from "../../../lambdas/domain/onboarding/auth/session-claims";

let root: string;
let key: LocalSigningKey;
let otherKey: LocalSigningKey;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "session-token-"));
  key = await loadOrCreateSigningKey(join(root, "main"));
  otherKey = await loadOrCreateSigningKey(join(root, "other"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const verifyLocal = (token: string | undefined, currentDate?: Date) =>
  verifySessionToken(token, {
    issuer: LOCAL_ISSUER,
    audience: LOCAL_AUDIENCE,
    key: key.publicKey,
    ...(currentDate === undefined ? {} : { currentDate }),
  });

async function expectRejected(promise: Promise<unknown>, reason: SessionTokenInvalidReason): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SessionTokenInvalidError);
  expect((error as Error).name).toBe("SessionTokenInvalidError");
  expect((error as SessionTokenInvalidError).reason).toBe(reason);
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
const nowSeconds = () => Math.floor(Date.now() / 1000);
const ownerClaims = () => ({
  iss: LOCAL_ISSUER,
  aud: LOCAL_AUDIENCE,
  sub: "user-1",
  business_account_id: "acme",
  role: "owner",
  iat: nowSeconds(),
  exp: nowSeconds() + 3600,
});

describe("issueSessionToken / verifySessionToken", () => {
  test("an issued token verifies and carries iss, aud, sub, business_account_id, role, iat and exp", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "owner", user: "user-1" });
    expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: key.kid, typ: "JWT" });
    const claims = await verifyLocal(token);
    expect(claims).toMatchObject({
      iss: LOCAL_ISSUER,
      aud: LOCAL_AUDIENCE,
      sub: "user-1",
      business_account_id: "acme",
      role: "owner",
    });
    expect(claims.exp! - claims.iat!).toBe(DEFAULT_SESSION_TTL_SECONDS);
    expect(DEFAULT_SESSION_TTL_SECONDS).toBe(12 * 60 * 60);
  });

  test("ROP and MOP tokens verify too (the 403 is the handlers' rule, not the token's)", async () => {
    for (const role of ["ROP", "MOP"] as const) {
      const claims = await verifyLocal(await issueSessionToken({ key, account: "acme", role }));
      expect(claims.role).toBe(role);
      expect(claims.sub).toBe(`local-${role.toLowerCase()}`);
    }
  });

  test("the claims as the authorizer hands them (strings) parse into the session", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "MOP", user: "u-9", ttlSeconds: 60 });
    const claims = toAuthorizerClaims(await verifyLocal(token));
    for (const value of Object.values(claims)) expect(typeof value).toBe("string");
    expect(claims.exp).toMatch(/^\d+$/);
    expect(v.parse(SessionClaimsSchema, claims)).toEqual({ businessAccountId: "acme", userId: "u-9", role: "MOP", email: null });
    const withEmail = await issueSessionToken({ key, account: "acme", role: "MOP", user: "u-9", email: "anna@example.com", ttlSeconds: 60 });
    expect(v.parse(SessionClaimsSchema, toAuthorizerClaims(await verifyLocal(withEmail))).email).toBe("anna@example.com");
  });

  test("expired: rejected", async () => {
    const issuedAt = new Date(Date.now() - 2 * 3600_000);
    const token = await issueSessionToken({ key, account: "acme", role: "owner", ttlSeconds: 3600, now: issuedAt });
    await expectRejected(verifyLocal(token), "expired");
    // ...and valid while it lasted
    await expect(verifyLocal(token, new Date(issuedAt.getTime() + 1000))).resolves.toMatchObject({ role: "owner" });
  });

  test("signed by another key (forged, even under the right kid): rejected", async () => {
    const forged = await issueSessionToken({ key: { ...otherKey, kid: key.kid }, account: "acme", role: "owner" });
    await expectRejected(verifyLocal(forged), "bad signature");
  });

  test("alg none: rejected", async () => {
    for (const alg of ["none", "None", "NONE"]) {
      const unsigned = `${b64url({ alg, typ: "JWT" })}.${b64url(ownerClaims())}.`;
      await expectRejected(verifyLocal(unsigned), "alg not allowed");
    }
  });

  test("HS256 token whose secret is the public key: rejected", async () => {
    const pem = await exportSPKI(key.publicKey);
    const secrets = [Buffer.from(pem, "utf8"), Buffer.from(JSON.stringify(key.publicJwk), "utf8")];
    for (const secret of secrets) {
      const viaJose = await new SignJWT(ownerClaims()).setProtectedHeader({ alg: "HS256", kid: key.kid }).sign(secret);
      await expectRejected(verifyLocal(viaJose), "alg not allowed");
      const input = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(ownerClaims())}`;
      const byHand = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      await expectRejected(verifyLocal(byHand), "alg not allowed");
    }
  });

  test("RS256 (another asymmetric algorithm): rejected, the algorithm is pinned to ES256", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const token = await new SignJWT(ownerClaims()).setProtectedHeader({ alg: "RS256" }).sign(privateKey);
    await expectRejected(verifyLocal(token), "alg not allowed");
  });

  test("wrong issuer: rejected", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "owner", issuer: "https://evil.example.com/" });
    await expectRejected(verifyLocal(token), "wrong issuer");
  });

  test("wrong audience: rejected", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "owner", audience: "another-api" });
    await expectRejected(verifyLocal(token), "wrong audience");
  });

  test("missing token: rejected", async () => {
    for (const token of [undefined, "", "   "]) await expectRejected(verifyLocal(token), "missing");
    await expectRejected(
      verifySessionToken(null, { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: key.publicKey }),
      "missing",
    );
  });

  test("not a JWT: rejected as malformed", async () => {
    for (const token of ["garbage", "a.b.c", "a.b", "a.b.c.d.e"]) {
      await expectRejected(verifyLocal(token), "malformed");
    }
    // A well-formed ES256 header with an unsigned junk payload fails on the signature, checked first.
    await expectRejected(verifyLocal(`${b64url({ alg: "ES256" })}.not-json.`), "bad signature");
  });

  test("a tampered payload (MOP rewritten to owner, or another account): rejected", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "MOP" });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    for (const change of [{ role: "owner" }, { business_account_id: "victim" }, { exp: nowSeconds() + 10 * 365 * 86400 }]) {
      const tampered = `${header}.${b64url({ ...claims, ...change })}.${signature}`;
      await expectRejected(verifyLocal(tampered), "bad signature");
    }
  });

  test("a token without exp: rejected (the authorizer requires it)", async () => {
    const { exp: _, ...noExp } = ownerClaims();
    const token = await new SignJWT(noExp).setProtectedHeader({ alg: "ES256", kid: key.kid }).sign(key.privateKey);
    await expectRejected(verifyLocal(token), "missing claim");
  });

  test("the rejection never echoes the token", async () => {
    const token = await issueSessionToken({ key, account: "acme", role: "owner", audience: "x" });
    const error = await verifyLocal(token).catch((caught: unknown) => caught as Error);
    expect(String((error as Error).message)).not.toContain(token.split(".")[1]);
    expect((error as Error).cause).toBeUndefined();
  });

  test("ttlSeconds must be a positive whole number", async () => {
    for (const ttlSeconds of [0, -1, 1.5, Number.NaN]) {
      await expect(issueSessionToken({ key, account: "acme", role: "owner", ttlSeconds })).rejects.toThrow(RangeError);
    }
  });
});

describe("bearerToken", () => {
  test("reads the token of a Bearer header; anything else is missing", () => {
    expect(bearerToken("Bearer abc.def.ghi")).toBe("abc.def.ghi");
    expect(bearerToken("bearer abc.def.ghi")).toBe("abc.def.ghi");
    for (const header of [undefined, null, "", "Bearer", "Bearer ", "Basic dXNlcjpw", "abc.def.ghi", "Bearer a b"]) {
      expect(bearerToken(header)).toBeUndefined();
    }
  });
});

describe("loadOrCreateSigningKey", () => {
  test("the key file is created with mode 0600 (private JWK) and reused after", async () => {
    const dataDir = join(root, "fresh", "nested");
    const first = await loadOrCreateSigningKey(dataDir);
    const path = signingKeyPath(dataDir);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const jwk = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", kid: first.kid });
    expect(typeof jwk.d).toBe("string");
    expect(first.publicJwk).not.toHaveProperty("d");

    const before = await readFile(path, "utf8");
    const second = await loadOrCreateSigningKey(dataDir);
    expect(second.kid).toBe(first.kid);
    expect(await readFile(path, "utf8")).toBe(before);
    const token = await issueSessionToken({ key: first, account: "acme", role: "owner" });
    await expect(
      verifySessionToken(token, { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, key: second.publicKey }),
    ).resolves.toMatchObject({ business_account_id: "acme" });
  });

  test("processes creating the key at once all end up with the same key", async () => {
    const dataDir = join(root, "race");
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSigningKey(dataDir)));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
  });

  test("a file that is not an ES256 private JWK is refused, never overwritten", async () => {
    const dataDir = join(root, "corrupt");
    await mkdir(dataDir, { recursive: true });
    for (const content of ["not json", JSON.stringify({ kty: "oct", k: "AAAA" }), JSON.stringify(key.publicJwk)]) {
      await writeFile(signingKeyPath(dataDir), content);
      await expect(loadOrCreateSigningKey(dataDir)).rejects.toThrow(/not an ES256 private JWK/);
      expect(await readFile(signingKeyPath(dataDir), "utf8")).toBe(content);
    }
  });
});
