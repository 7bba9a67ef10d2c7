import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { SourceHardError, SyncError } from "../../../lambdas/core/errors";
import { createGuardedFetch } from "../../../lambdas/source/ssrf/guarded-fetch";
import type { ResolveAll, ResolvedAddress } from "../../../lambdas/source/ssrf/pinned-lookup";
import { SourceAddressRefusedError } from "../../../lambdas/source/ssrf/source-address-refused-error";
import { startSourceServer, type SourceHandler, type SourceServer } from "../../support/source-server";
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

const open: SourceServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(handler: SourceHandler): Promise<SourceServer> {
  const server = await startSourceServer(handler);
  open.push(server);
  return server;
}

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

async function refusal(promise: Promise<unknown>): Promise<SourceAddressRefusedError> {
  const error = await promise.then(
    () => {
      throw new Error("expected the request to be refused");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SourceAddressRefusedError);
  return error as SourceAddressRefusedError;
}

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
    const server = await serve(() => ({ hang: true }));
    const guarded = createGuardedFetch({ allowLoopback: true });
    const signal = AbortSignal.timeout(100);
    await expect(guarded(`${server.baseUrl}/slow`, { signal })).rejects.toMatchObject({ name: "TimeoutError" });
    expect(signal.aborted).toBe(true);
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

describe("redirects", () => {
  test("a redirect from the loopback server to the metadata address is refused", async () => {
    const server = await serve(() => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } }));
    const connected = connectedTo.length;
    const error = await refusal(createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/start?token=${TOKEN}`));
    expect(error.detail).toBe("redirect to host 169.254.169.254 is a cloud metadata address");
    expect(error.detail).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(1);
    expect(connectedTo.slice(connected).every((address) => address === "127.0.0.1")).toBe(true);
  });

  test("a redirect to a name resolving to a private address is refused at connect time", async () => {
    const dns = fakeDns({ "inside.test": ["192.168.1.10"] });
    const server = await serve(() => ({ status: 307, headers: { location: "http://inside.test/admin" } }));
    const error = await refusal(createGuardedFetch({ allowLoopback: true, lookup: dns.lookup })(server.baseUrl));
    expect(error.detail).toBe("host inside.test resolves to a private address (192.168.1.10)");
    expect(dns.asked).toEqual(["inside.test"]);
  });

  test("a same-origin redirect keeps Authorization", async () => {
    const server = await serve((request) =>
      request.path === "/start" ? { status: 301, headers: { location: "/next?page=2" } } : { json: { done: true } },
    );
    const response = await createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/start`, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: "application/json" },
      redirect: "manual",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
    expect(server.requests.map((request) => request.url)).toEqual(["/start", "/next?page=2"]);
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  test("a cross-origin redirect (another port) drops Authorization and keeps the rest", async () => {
    const second = await serve(() => ({ json: { moved: true } }));
    const first = await serve(() => ({ status: 302, headers: { location: `${second.baseUrl}/landing` } }));
    const response = await createGuardedFetch({ allowLoopback: true })(`${first.baseUrl}/start`, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: "application/json" },
    });
    expect(await response.json()).toEqual({ moved: true });
    expect(first.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(second.requests).toHaveLength(1);
    expect(second.requests[0]?.headers.authorization).toBeUndefined();
    expect(second.requests[0]?.headers.accept).toBe("application/json");
  });

  test("Authorization stays dropped when the chain comes back to the first origin", async () => {
    let firstUrl = "";
    const second = await serve(() => ({ status: 302, headers: { location: `${firstUrl}/back` } }));
    const first = await serve((request) =>
      request.path === "/start" ? { status: 302, headers: { location: `${second.baseUrl}/hop` } } : { json: {} },
    );
    firstUrl = first.baseUrl;
    await createGuardedFetch({ allowLoopback: true })(`${first.baseUrl}/start`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(first.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
      ["/start", `Bearer ${TOKEN}`],
      ["/back", undefined],
    ]);
  });

  test("303 turns a POST into a bodiless GET; 307 keeps the method and body", async () => {
    const server = await serve((request) => {
      if (request.path === "/see-other") return { status: 303, headers: { location: "/result" } };
      if (request.path === "/temporary") return { status: 307, headers: { location: "/result" } };
      return { json: { method: request.method } };
    });
    const guarded = createGuardedFetch({ allowLoopback: true });
    const init = { method: "POST", body: "x=1", headers: { "content-type": "application/x-www-form-urlencoded" } };

    expect(await (await guarded(`${server.baseUrl}/see-other`, init)).json()).toEqual({ method: "GET" });
    expect(server.requests[1]?.headers["content-type"]).toBeUndefined();
    expect(await (await guarded(`${server.baseUrl}/temporary`, init)).json()).toEqual({ method: "POST" });
    expect(server.requests[3]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(server.requests[3]?.headers["content-length"]).toBe("3");
  });

  test("five redirects are followed", async () => {
    const server = await serve((request) => {
      const hop = Number(request.query.get("n") ?? "0");
      return hop < 5 ? { status: 308, headers: { location: `/loop?n=${hop + 1}` } } : { json: { hops: hop } };
    });
    const response = await createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/loop`);
    expect(await response.json()).toEqual({ hops: 5 });
    expect(server.requests).toHaveLength(6);
  });

  test("more than five redirects is a SourceHardError", async () => {
    const server = await serve((request) => ({ status: 302, headers: { location: `/loop?n=${request.requestIndex + 1}` } }));
    const error = await createGuardedFetch({ allowLoopback: true })(`${server.baseUrl}/loop`).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SourceHardError);
    expect((error as SourceHardError).detail).toBe("more than 5 redirects");
    expect(server.requests).toHaveLength(6);
  });

  test("maxRedirects is configurable", async () => {
    const server = await serve(() => ({ status: 302, headers: { location: "/again" } }));
    await expect(createGuardedFetch({ allowLoopback: true, maxRedirects: 1 })(server.baseUrl)).rejects.toBeInstanceOf(
      SourceHardError,
    );
    expect(server.requests).toHaveLength(2);
  });

  test.each([
    ["file:///etc/passwd", "redirect target scheme file: is not http or https"],
    ["http://user:pw@127.0.0.1/", "redirect target must not contain a user name or password"],
    ["http://[::1/", "HTTP 302 redirect has an invalid Location"],
  ])("a redirect to %s is a SourceHardError", async (location, detail) => {
    const server = await serve(() => ({ status: 302, headers: { location } }));
    await expect(createGuardedFetch({ allowLoopback: true })(server.baseUrl)).rejects.toMatchObject({
      name: "SourceHardError",
      detail,
    });
  });

  test("a 3xx without Location is returned as it is", async () => {
    const server = await serve(() => ({ status: 304 }));
    expect((await createGuardedFetch({ allowLoopback: true })(server.baseUrl)).status).toBe(304);
  });

  test("redirect: error refuses to follow", async () => {
    const server = await serve(() => ({ status: 302, headers: { location: "/next" } }));
    await expect(
      createGuardedFetch({ allowLoopback: true })(server.baseUrl, { redirect: "error" }),
    ).rejects.toBeInstanceOf(SourceHardError);
    expect(server.requests).toHaveLength(1);
  });
});

test("the resolver is never asked for an IP literal", async () => {
  const lookup = vi.fn<ResolveAll>(async () => [{ address: "127.0.0.1", family: 4 }]);
  const server = await serve(() => ({ json: {} }));
  await createGuardedFetch({ allowLoopback: true, lookup })(server.baseUrl);
  expect(lookup).not.toHaveBeenCalled();
});
