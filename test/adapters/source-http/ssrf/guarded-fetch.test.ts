import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { SyncError } from "../../../../lambdas/domain/core/errors";
import { createGuardedFetch } from "../../../../lambdas/adapters/source-http/ssrf/guarded-fetch";
import type { ResolveAll, ResolvedAddress } from "../../../../lambdas/adapters/source-http/ssrf/pinned-lookup";
import { SourceAddressRefusedError } from "../../../../lambdas/domain/source-contract/source-address-refused-error";
import { rejectedWith } from "../../../support/rejected-with";
import { useSourceServers } from "../../../support/source-servers";
import { installLoopbackTripwire, trips } from "./loopback-tripwire";

const TOKEN = "tok_live_9f8e7d6c5b4a3210";

// Every socket undici opens in this file, and every connect it starts: nothing may leave 127.0.0.1.
const connectedTo: string[] = [];
const connectsStarted: string[] = [];
const onConnected = (message: unknown): void => {
  const { socket } = message as { socket: Socket };
  connectedTo.push(socket.remoteAddress ?? "?");
};
const onBeforeConnect = (message: unknown): void => {
  const { connectParams } = message as { connectParams: { hostname: string } };
  connectsStarted.push(connectParams.hostname);
};
let removeTripwire = (): void => undefined;
beforeAll(() => {
  removeTripwire = installLoopbackTripwire();
  subscribe("undici:client:connected", onConnected);
  subscribe("undici:client:beforeConnect", onBeforeConnect);
});
afterAll(() => {
  removeTripwire();
  expect(trips).toEqual([]);
  unsubscribe("undici:client:connected", onConnected);
  unsubscribe("undici:client:beforeConnect", onBeforeConnect);
  expect(connectedTo.length).toBeGreaterThan(0);
  expect(connectedTo.every((address) => address === "127.0.0.1")).toBe(true);
});

const serve = useSourceServers();

/** A resolver that answers from a table and records what it was asked; anything else is ENOTFOUND. */
function fakeDns(table: Readonly<Record<string, readonly string[]>>) {
  const asked: string[] = [];
  const lookup: ResolveAll = async (hostname) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { lookup, asked };
}

const refusal = (promise: Promise<unknown>) => rejectedWith(promise, SourceAddressRefusedError);

describe("IP literals are refused before any connection", () => {
  test.each([
    ["http://169.254.169.254/latest/meta-data", "a cloud metadata address"],
    ["http://[fd00:ec2::254]/", "a cloud metadata address"],
    ["http://10.0.0.1/", "a private address"],
    ["http://172.16.0.1/", "a private address"],
    ["http://192.168.1.1/", "a private address"],
    ["http://100.64.0.1/", "a carrier-grade NAT address"],
    ["http://[fe80::1]/", "a link-local address"],
    ["http://127.0.0.1:1/", "a loopback address"],
    ["http://0177.0.0.1/", "a loopback address"],
    ["http://2130706433/", "a loopback address"],
    ["http://127.1/", "a loopback address"],
    ["http://0x7f000001/", "a loopback address"],
    ["http://[::1]/", "a loopback address"],
    ["http://[::ffff:127.0.0.1]/", "an IPv4-mapped IPv6 address"],
    ["http://[::ffff:7f00:1]/", "an IPv4-mapped IPv6 address"],
    ["http://[::127.0.0.1]/", "an IPv4-compatible IPv6 address"],
  ])("%s is %s", async (url, reason) => {
    const dns = fakeDns({});
    const before = connectsStarted.length;
    const error = await refusal(createGuardedFetch({ allowLoopback: false, lookup: dns.lookup })(url));
    expect(error.detail).toMatch(new RegExp(`^host \\S+ is ${reason}$`));
    expect(error.retryable).toBe(false);
    expect(dns.asked).toEqual([]);
    expect(connectsStarted.length).toBe(before);
  });

  test("localhost is refused without allowLoopback, before DNS", async () => {
    const dns = fakeDns({ localhost: ["127.0.0.1"] });
    const error = await refusal(createGuardedFetch({ allowLoopback: false, lookup: dns.lookup })("http://localhost:1/"));
    expect(error.detail).toBe("host localhost is a loopback host name");
    expect(dns.asked).toEqual([]);
  });

  test("allowLoopback still refuses metadata, private and mapped literals", async () => {
    const guarded = createGuardedFetch({ allowLoopback: true, lookup: fakeDns({}).lookup });
    for (const url of ["http://169.254.169.254/", "http://10.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[fd00:ec2::254]/"]) {
      await refusal(guarded(url));
    }
  });
});

describe("DNS names are checked at connect time, on every address", () => {
  test("a name resolving to a private address is refused without connecting", async () => {
    const dns = fakeDns({ "crm.internal.test": ["10.0.0.5"] });
    const guarded = createGuardedFetch({ allowLoopback: false, lookup: dns.lookup });
    const connected = connectedTo.length;
    const error = await refusal(guarded(`http://crm.internal.test/leads?token=${TOKEN}`));
    expect(error.detail).toBe("host crm.internal.test resolves to a private address (10.0.0.5)");
    expect(error.detail).not.toContain(TOKEN);
    expect(dns.asked).toEqual(["crm.internal.test"]);
    expect(connectedTo.length).toBe(connected);
  });

  test("a name resolving to public and private addresses together is refused whole", async () => {
    const dns = fakeDns({ "mixed.test": ["93.184.216.34", "10.0.0.5"] });
    const guarded = createGuardedFetch({ allowLoopback: false, lookup: dns.lookup });
    const connected = connectedTo.length;
    const error = await refusal(guarded("https://mixed.test/"));
    expect(error.detail).toBe("host mixed.test resolves to a private address (10.0.0.5)");
    expect(connectedTo.length).toBe(connected);
  });

  test.each([
    ["169.254.169.254", "a cloud metadata address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["::ffff:10.0.0.5", "an IPv4-mapped IPv6 address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["127.0.0.1", "a loopback address"],
  ])("a name resolving to %s is refused as %s", async (address, reason) => {
    const dns = fakeDns({ "rebind.test": [address] });
    const error = await refusal(createGuardedFetch({ allowLoopback: false, lookup: dns.lookup })("http://rebind.test/"));
    expect(error.detail).toBe(`host rebind.test resolves to ${reason} (${address})`);
  });

  test("a name resolving to loopback reaches the loopback server only with allowLoopback, at the address checked", async () => {
    const server = await serve(() => ({ json: { hello: "world" } }));
    const port = new URL(server.baseUrl).port;
    const dns = fakeDns({ "source.test": ["127.0.0.1"] });

    await refusal(createGuardedFetch({ allowLoopback: false, lookup: dns.lookup })(`http://source.test:${port}/a`));
    expect(server.requests).toHaveLength(0);

    const response = await createGuardedFetch({ allowLoopback: true, lookup: dns.lookup })(`http://source.test:${port}/b`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hello: "world" });
    expect(server.requests.map((request) => [request.path, request.headers.host])).toEqual([["/b", `source.test:${port}`]]);
  });

  test("a DNS failure is the resolver's own error, not a refusal", async () => {
    const error = await createGuardedFetch({ allowLoopback: false, lookup: fakeDns({}).lookup })("http://nowhere.test/").then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).not.toBeInstanceOf(SyncError);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe("ENOTFOUND");
  });
});

describe("a real loopback server", () => {
  test("is reachable through the guarded fetch only with allowLoopback", async () => {
    const server = await serve(() => ({ json: { ok: true } }));
    await refusal(createGuardedFetch({ allowLoopback: false })(`${server.baseUrl}/x`));
    expect(server.requests).toHaveLength(0);

    const response = await createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/x`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  test("takes a Request as input, with its method, headers and body", async () => {
    const server = await serve(() => ({ status: 201, body: "created" }));
    const guarded = createGuardedFetch({ allowLoopback: true });
    const response = await guarded(
      new Request(`${server.baseUrl}/items`, { method: "POST", headers: { "x-test": "1" }, body: "payload" }),
    );
    expect(response.status).toBe(201);
    expect(await response.text()).toBe("created");
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/items", headers: { "x-test": "1" } });
  });

  test("honours the caller's signal", async () => {
    const controller = new AbortController();
    // Aborted once the request has arrived: no timer involved.
    const server = await serve(() => {
      controller.abort();
      return { hang: true };
    });
    const guarded = createGuardedFetch({ allowLoopback: true });
    await expect(guarded(`${server.baseUrl}/slow`, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(1);
  });

  test("an already aborted signal sends nothing", async () => {
    const server = await serve(() => ({ json: {} }));
    const controller = new AbortController();
    controller.abort();
    await expect(createGuardedFetch({ allowLoopback: true })(server.baseUrl, { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("redirects are never followed: the 3xx is returned as it is", () => {
  test.each([301, 302, 307, 308])(
    "%i to another loopback origin: one request reaches the source, nothing reaches the target",
    async (status) => {
      const target = await serve(() => ({ json: { moved: true } }));
      const source = await serve(() => ({ status, headers: { location: `${target.baseUrl}/landing` } }));
      const response = await createGuardedFetch({ allowLoopback: true })(`${source.baseUrl}/start`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(status);
      expect(response.headers.get("location")).toBe(`${target.baseUrl}/landing`);
      expect(source.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    },
  );

  test("whatever redirect mode the caller asks for", async () => {
    const target = await serve(() => ({ json: {} }));
    const source = await serve(() => ({ status: 302, headers: { location: `${target.baseUrl}/x` } }));
    const guarded = createGuardedFetch({ allowLoopback: true });
    for (const redirect of ["follow", "manual", "error"] as const) {
      expect((await guarded(source.baseUrl, { redirect })).status).toBe(302);
    }
    expect(source.requests).toHaveLength(3);
    expect(target.requests).toHaveLength(0);
  });

  test("a redirect to the metadata address is returned, and no socket leaves loopback", async () => {
    const server = await serve(() => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } }));
    const connected = connectedTo.length;
    const response = await createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/start`);
    expect(response.status).toBe(302);
    expect(server.requests).toHaveLength(1);
    expect(connectedTo.slice(connected).every((address) => address === "127.0.0.1")).toBe(true);
  });

  test("a redirect to a name is never resolved", async () => {
    const dns = fakeDns({ "inside.test": ["192.168.1.10"] });
    const server = await serve(() => ({ status: 307, headers: { location: "http://inside.test/admin" } }));
    expect((await createGuardedFetch({ allowLoopback: true, lookup: dns.lookup })(server.baseUrl)).status).toBe(307);
    expect(dns.asked).toEqual([]);
  });

  test("a 3xx without Location is returned as it is", async () => {
    const server = await serve(() => ({ status: 304 }));
    expect((await createGuardedFetch({ allowLoopback: true })(server.baseUrl)).status).toBe(304);
  });
});

describe("the URL's scheme and credentials", () => {
  test.each([
    ["file:///etc/passwd", "URL scheme file: is not http or https"],
    ["http://user:pw@127.0.0.1/", "URL must not contain a user name or password"],
  ])("%s is a SourceHardError, nothing sent", async (url, detail) => {
    const before = connectsStarted.length;
    await expect(createGuardedFetch({ allowLoopback: true })(url)).rejects.toMatchObject({ name: "SourceHardError", detail });
    expect(connectsStarted.length).toBe(before);
  });
});

test("the resolver is never asked for an IP literal", async () => {
  const lookup = vi.fn<ResolveAll>(async () => [{ address: "127.0.0.1", family: 4 }]);
  const server = await serve(() => ({ json: {} }));
  await createGuardedFetch({ allowLoopback: true, lookup })(server.baseUrl);
  expect(lookup).not.toHaveBeenCalled();
});
