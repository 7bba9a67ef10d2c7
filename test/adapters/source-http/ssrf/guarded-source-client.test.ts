import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SourceRedirectError, SyncError } from "../../../../lambdas/domain/core/errors";
import { createHttpSourceClient } from "../../../../lambdas/adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../../../lambdas/adapters/source-http/ssrf/guarded-fetch";
import type { ResolveAll } from "../../../../lambdas/adapters/source-http/ssrf/pinned-lookup";
import { SourceAddressRefusedError } from "../../../../lambdas/domain/source-contract/source-address-refused-error";
import { rejectedWith } from "../../../support/rejected-with";
import { envelope } from "../../../support/source-server";
import { useSourceServers } from "../../../support/source-servers";
import { installLoopbackTripwire, trips } from "./loopback-tripwire";

const TOKEN = "tok_live_9f8e7d6c5b4a3210";
const PAGE = { path: "/leads", page: 1 } as const;

// A safety net under the guard: no socket of this file may reach anything but loopback.
let removeTripwire = (): void => undefined;
beforeAll(() => {
  removeTripwire = installLoopbackTripwire();
});
afterAll(() => {
  removeTripwire();
  expect(trips).toEqual([]);
});

const serve = useSourceServers();

/** Every name is a private address: the guard must refuse before any socket opens. */
const privateDns: ResolveAll = async () => [{ address: "10.0.0.5", family: 4 }];

function client(allowLoopback: boolean, lookup?: ResolveAll) {
  return createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback, ...(lookup ? { lookup } : {}) }), timeoutMs: 5000 });
}

const failure = (promise: Promise<unknown>) => rejectedWith(promise, SyncError);

describe("the source client over the guarded fetch", () => {
  test.each(["http://169.254.169.254", "http://10.0.0.1/api", "http://[fd00:ec2::254]", "http://2130706433"])(
    "a base_url of %s surfaces as SourceAddressRefusedError",
    async (baseUrl) => {
      const error = await failure(client(false, privateDns).fetchPage({ baseUrl, token: TOKEN }, PAGE));
      expect(error).toBeInstanceOf(SourceAddressRefusedError);
      expect(error.name).toBe("SourceAddressRefusedError");
      expect(error.retryable).toBe(false);
      expect(error.detail).not.toContain(TOKEN);
      expect(error.detail).not.toContain("limit=");
    },
  );

  test("a DNS name resolving to a private address surfaces as SourceAddressRefusedError", async () => {
    const error = await failure(client(false, privateDns).fetchPage({ baseUrl: "https://crm.example.test", token: TOKEN }, PAGE));
    expect(error).toBeInstanceOf(SourceAddressRefusedError);
    expect(error.detail).toBe("host crm.example.test resolves to a private address (10.0.0.5)");
  });

  test("the loopback source is read with allowLoopback and refused without it", async () => {
    const server = await serve(() => ({ json: envelope([{ id: "L1" }], false) }));
    const page = await client(true).fetchPage({ baseUrl: server.baseUrl, token: TOKEN }, PAGE);
    expect(page.data).toEqual([{ id: "L1" }]);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const error = await failure(client(false).fetchPage({ baseUrl: server.baseUrl, token: TOKEN }, PAGE));
    expect(error).toBeInstanceOf(SourceAddressRefusedError);
    expect(server.requests).toHaveLength(1);
  });

  test.each([301, 302, 307, 308])(
    "a %i to another loopback origin is not followed: one request, none to the target, SourceRedirectError naming the Location",
    async (status) => {
      const target = await serve(() => ({ json: envelope([{ id: "moved" }], false) }));
      const source = await serve(() => ({ status, headers: { location: `${target.baseUrl}/v2/leads` } }));
      const error = await failure(client(true).fetchPage({ baseUrl: source.baseUrl, token: TOKEN }, PAGE));
      expect(error).toBeInstanceOf(SourceRedirectError);
      expect(error.retryable).toBe(false);
      expect(error.detail).toBe(`the source answered ${status} to ${target.baseUrl}/v2/leads; set base_url to the final address`);
      expect(source.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    },
  );

  test("a redirect to the metadata address is reported, never requested", async () => {
    const server = await serve(() => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } }));
    const error = await failure(client(true).fetchPage({ baseUrl: server.baseUrl, token: TOKEN }, PAGE));
    expect(error).toBeInstanceOf(SourceRedirectError);
    expect(error.detail).toBe("the source answered 302 to http://169.254.169.254/latest/meta-data; set base_url to the final address");
    expect(server.requests).toHaveLength(1);
  });

  test("status errors still map as before (401 from the source)", async () => {
    const server = await serve(() => ({ status: 401, json: { error: `bad token ${TOKEN}` } }));
    const error = await failure(client(true).fetchPage({ baseUrl: server.baseUrl, token: TOKEN }, PAGE));
    expect(error.name).toBe("SourceAuthError");
    expect(error.detail).toBe("bad token [redacted]");
  });
});
