import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import {
  SourceAuthError,
  SourceHardError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  SyncError,
} from "../../../lambdas/domain/core/errors";
import { SOURCE_REQUEST_TIMEOUT_MS } from "../../../lambdas/domain/core/limits";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";
import { createGuardedFetch } from "../../../lambdas/adapters/source-http/ssrf/guarded-fetch";
import { envelope, startSourceServer, type SourceHandler, type SourceServer } from "../../support/source-server";
import { forceGc } from "./force-gc";
import { gate } from "../../support/gate";
import { rejectedWith } from "../../support/rejected-with";
import { manualDeadline } from "./manual-deadline";

const TOKEN = "tok_live_9f8e7d6c5b4a3210";
const client = createHttpSourceClient();

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(handler: SourceHandler): Promise<SourceServer> {
  const server = await startSourceServer(handler);
  open.push(server);
  return server;
}

/** A raw server for what the helper cannot do (a body that stalls or never ends, a socket cut mid-body). */
async function serveRaw(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function connection(baseUrl: string, token = TOKEN) {
  return { baseUrl, token };
}

const failure = (promise: Promise<unknown>) => rejectedWith(promise, SyncError);

/** Status, headers and body of a one-shot reply. */
async function fail(reply: Awaited<ReturnType<SourceHandler>>, path = "/leads"): Promise<SyncError> {
  const server = await serve(() => reply);
  return failure(client.fetchPage(connection(server.baseUrl), { path, page: 1 }));
}

describe("request", () => {
  test("sends GET with Authorization: Bearer <token> and Accept: application/json", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    await client.fetchPage(connection(server.baseUrl), { path: "/pipelines", page: 1 });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("GET");
    expect(request?.path).toBe("/pipelines");
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.accept).toBe("application/json");
  });

  test("query is exactly limit=100&page=N when there is no updatedSince", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    await client.fetchPage(connection(server.baseUrl), { path: "/users", page: 3 });
    expect(server.requests[0]?.url).toBe("/users?limit=100&page=3");
    expect(server.requests[0]?.query).toEqual({ limit: "100", page: "3" });
  });

  test("updated_since is percent-encoded: '+05:00' arrives as '+05:00', never as a space", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    await client.fetchPage(connection(server.baseUrl), {
      path: "/leads",
      page: 2,
      updatedSince: "2024-03-01T10:00:00+05:00",
    });
    expect(server.requests[0]?.url).toBe("/leads?limit=100&page=2&updated_since=2024-03-01T10%3A00%3A00%2B05%3A00");
    expect(server.requests[0]?.query).toEqual({ limit: "100", page: "2", updated_since: "2024-03-01T10:00:00+05:00" });
  });

  test("base URL path is kept and a trailing slash is not doubled", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    await client.fetchPage(connection(`${server.baseUrl}/api/v2/`), { path: "/contacts", page: 1 });
    expect(server.requests[0]?.path).toBe("/api/v2/contacts");
  });

  test("uses the injected fetch (the SSRF-guard seam), and a SyncError it throws passes through", async () => {
    const server = await serve(() => ({ json: envelope([1]) }));
    const seen: string[] = [];
    const counting = createHttpSourceClient({
      fetch: (input, init) => {
        seen.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    await counting.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 });
    expect(seen).toEqual([`${server.baseUrl}/leads?limit=100&page=1`]);

    const guard = new SourceHardError("address 10.0.0.1 is not allowed");
    const guarded = createHttpSourceClient({ fetch: () => Promise.reject(guard) });
    expect(await failure(guarded.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }))).toBe(guard);
  });

  test("a token that cannot be sent in a header is an auth failure that never quotes it, and nothing is sent", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    const error = await failure(client.fetchPage(connection(server.baseUrl, `${TOKEN}\nX: y`), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceAuthError);
    expect(error.message).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(0);
  });

  test("a base URL that is not an http(s) URL is a hard failure", async () => {
    const error = await failure(client.fetchPage(connection("not a url"), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceHardError);
    expect((await failure(client.fetchPage(connection("ftp://example.com"), { path: "/leads", page: 1 }))).name).toBe(
      "SourceHardError",
    );
  });
});

describe("200: success, the envelope is read", () => {
  async function page(body: unknown) {
    const server = await serve(() => ({ json: body }));
    return client.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 });
  }

  test("data and has_more true", async () => {
    expect(await page({ data: [{ id: "a" }, { id: "b" }], has_more: true, page: 1, limit: 100 })).toEqual({
      data: [{ id: "a" }, { id: "b" }],
      hasMore: true,
    });
  });

  test("empty data with has_more true still continues paging", async () => {
    expect(await page({ data: [], has_more: true })).toEqual({ data: [], hasMore: true });
  });

  test.each([
    ["missing", {}],
    ["null", { data: null }],
  ])("data %s is read as an empty page", async (_name, body) => {
    expect(await page({ ...body, has_more: false })).toEqual({ data: [], hasMore: false });
  });

  test.each([
    ["missing", {}],
    ["null", { has_more: null }],
    ["false", { has_more: false }],
    ["0", { has_more: 0 }],
    ['""', { has_more: "" }],
  ])("has_more %s ends paging", async (_name, body) => {
    expect(await page({ data: [1], ...body })).toEqual({ data: [1], hasMore: false });
  });

  test.each([["true"], [1], [{}], [[]]])("has_more %j is a hard failure naming has_more", async (value) => {
    const server = await serve(() => ({ json: { data: [], has_more: value } }));
    const error = await failure(client.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toContain("has_more");
  });

  test.each([["x"], [{ id: "a" }], [5]])("data %j that is not an array is a hard failure", async (value) => {
    const error = await fail({ json: { data: value, has_more: false } });
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toContain("data");
  });

  test.each([[[]], [null], ["envelope"], [42]])("JSON %j that is not an object is a hard failure", async (value) => {
    const error = await fail({ json: value });
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body is not a JSON object");
  });

  test("a body that is not JSON is a hard failure", async () => {
    const error = await fail({ headers: { "content-type": "text/html" }, body: "<html>login</html>" });
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body is not JSON (content-type text/html)");
  });

  test("an empty 200 body is a hard failure", async () => {
    expect(await fail({ body: "" })).toBeInstanceOf(SourceHardError);
  });
});

describe("body size cap", () => {
  const capped = createHttpSourceClient({ maxResponseBytes: 1024 });
  const big = JSON.stringify(envelope(["x".repeat(2000)]));

  test("a body exactly at the cap is read", async () => {
    const body = JSON.stringify(envelope(["y".repeat(1024 - JSON.stringify(envelope([""])).length)]));
    expect(body).toHaveLength(1024);
    const server = await serve(() => ({ body }));
    expect((await capped.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 })).data).toHaveLength(1);
  });

  test("Content-Length over the cap is a hard failure", async () => {
    const server = await serve(() => ({ body: big }));
    const error = await failure(capped.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body exceeds 1 KiB");
  });

  test("a chunked body (no Content-Length) over the cap is a hard failure", async () => {
    const server = await serve(() => ({ body: [big.slice(0, 600), big.slice(600, 1200), big.slice(1200)] }));
    const error = await failure(capped.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body exceeds 1 KiB");
  });

  test("an endless body is cut off at the cap, not read until the timeout", async () => {
    const baseUrl = await serveRaw((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":[');
      // Endless: the next chunk as soon as the last one is flushed, until the client hangs up.
      const more = (): void => {
        if (!res.destroyed) res.write(`"${"x".repeat(1000)}",`, more);
      };
      more();
    });
    // A deadline that never fires: only the cap can end this request.
    const deadline = manualDeadline();
    const slowCapped = createHttpSourceClient({ maxResponseBytes: 4096, deadline: deadline.timer });
    const error = await failure(slowCapped.fetchPage(connection(baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body exceeds 4 KiB");
    expect(deadline.started.map((started) => started.stopped)).toEqual([true]);
  });

  test("the default cap is 16 MiB (refused on Content-Length, before any body is sent)", async () => {
    const huge = await serveRaw((_req, res) => {
      res.writeHead(200, { "content-length": String(17 * 1024 * 1024) });
      res.write("{");
    });
    const tooBig = await failure(client.fetchPage(connection(huge), { path: "/leads", page: 1 }));
    expect(tooBig).toBeInstanceOf(SourceHardError);
    expect(tooBig.detail).toBe("response body exceeds 16 MiB");
  });
});

describe("status codes", () => {
  test("401: auth failure, no retry", async () => {
    const error = await fail({ status: 401, json: { error: "token revoked" } });
    expect(error).toBeInstanceOf(SourceAuthError);
    expect(error.retryable).toBe(false);
    expect(error.detail).toBe("token revoked");
  });

  test("404: endpoint not implemented", async () => {
    const error = await fail({ status: 404, body: "Not Found" }, "/events");
    expect(error).toBeInstanceOf(SourceNotImplementedError);
    expect(error.detail).toBe("HTTP 404");
  });

  describe("429: carries Retry-After in whole seconds, floored to 1", () => {
    test.each([
      ["7", 7],
      ["2.5", 3],
      ["0", 1],
      ["0.2", 1],
      ["-3", 1],
      ["soon", 1],
      [undefined, 1],
    ])("Retry-After %j -> %d s", async (header, seconds) => {
      const error = await fail({ status: 429, headers: header === undefined ? {} : { "retry-after": header } });
      expect(error).toBeInstanceOf(SourceThrottledError);
      expect(error.retryable).toBe(true);
      expect((error as SourceThrottledError).retryAfterSeconds).toBe(seconds);
      expect(error.detail).toBe("HTTP 429");
    });

    test("Retry-After as an HTTP-date counts whole seconds from the injected now", async () => {
      const now = Date.parse("2026-03-01T10:00:00.000Z");
      const server = await serve(() => ({ status: 429, headers: { "retry-after": new Date(now + 30_000).toUTCString() } }));
      const clocked = createHttpSourceClient({ clock: { now: () => new Date(now) } });
      const error = (await failure(clocked.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }))) as SourceThrottledError;
      expect(error).toBeInstanceOf(SourceThrottledError);
      expect(error.retryAfterSeconds).toBe(30);
    });
  });

  test.each([500, 502, 503, 504, 599])("5xx: %d is transient, retried with backoff", async (status) => {
    const error = await fail({ status });
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.retryable).toBe(true);
    expect(error.detail).toBe(`HTTP ${status}`);
  });

  test.each([400, 403, 405, 409, 410, 422])("other 4xx: %d is a hard failure, no retry", async (status) => {
    const error = await fail({ status, json: { error: `nope ${status}` } });
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.retryable).toBe(false);
    expect(error.detail).toBe(`nope ${status}`);
  });

  test.each([201, 204])("a 2xx other than 200 (%d) is a hard failure", async (status) => {
    expect(await fail({ status })).toBeInstanceOf(SourceHardError);
  });

});

describe("redirects are never followed: the request fails naming the Location", () => {
  test.each([301, 302, 307, 308])(
    "%i to another origin: one request reaches the source, none the target, a SourceRedirectError naming the Location",
    async (status) => {
      const target = await serve(() => ({ json: envelope([{ id: "moved" }]) }));
      const source = await serve(() => ({ status, headers: { location: `${target.baseUrl}/v2/leads` } }));
      const error = await failure(client.fetchPage(connection(source.baseUrl), { path: "/leads", page: 1 }));
      expect(error).toBeInstanceOf(SourceRedirectError);
      expect(error.name).toBe("SourceRedirectError");
      expect(error.retryable).toBe(false);
      expect(error.httpStatus).toBe(status);
      expect(error.detail).toBe(`the source answered ${status} to ${target.baseUrl}/v2/leads; set base_url to the final address`);
      expect(source.requests).toHaveLength(1);
      expect(target.requests).toHaveLength(0);
    },
  );

  test("a relative Location is resolved against the request URL", async () => {
    const server = await serve(({ path }) => (path === "/leads" ? { status: 302, headers: { location: "/api/leads" } } : { json: envelope([]) }));
    const error = await failure(client.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    expect(error.detail).toBe(`the source answered 302 to ${server.baseUrl}/api/leads; set base_url to the final address`);
    expect(server.requests.map((request) => request.path)).toEqual(["/leads"]);
  });

  test("a 3xx without Location says so", async () => {
    const error = await fail({ status: 302 });
    expect(error).toBeInstanceOf(SourceRedirectError);
    expect(error.detail).toBe("the source answered 302 without a Location header; set base_url to the final address");
  });

  test("a Location echoing the token is redacted", async () => {
    const error = await fail({ status: 302, headers: { location: `https://crm.example.com/login?t=${TOKEN}` } });
    expect(error.detail).toBe("the source answered 302 to https://crm.example.com/login?t=[redacted]; set base_url to the final address");
  });

  test("a very long Location is shortened so the advice survives the 300-character cut", async () => {
    const error = await fail({ status: 301, headers: { location: `https://crm.example.com/${"a".repeat(400)}` } });
    expect(error.detail).toMatch(/^the source answered 301 to https:\/\/crm\.example\.com\/a+\.\.\.; set base_url to the final address$/);
  });
});

describe("request timeout and network failures: retried like a 5xx", () => {
  test("the request deadline is the spec's 20 s by default, started once per request and stopped when it ends", async () => {
    const server = await serve(() => ({ json: envelope([]) }));
    const deadline = manualDeadline();
    await createHttpSourceClient({ deadline: deadline.timer }).fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 });
    expect(SOURCE_REQUEST_TIMEOUT_MS).toBe(20_000);
    expect(deadline.started.map(({ ms, stopped }) => ({ ms, stopped }))).toEqual([{ ms: 20_000, stopped: true }]);
  });

  test("request timeout: a server that never answers fails when the deadline passes", async () => {
    const arrived = gate();
    const server = await serve(() => {
      arrived.open();
      return { hang: true };
    });
    const deadline = manualDeadline();
    const timed = createHttpSourceClient({ timeoutMs: 300, deadline: deadline.timer });
    const pending = failure(timed.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    await arrived.opened;
    expect(deadline.started.map((started) => started.ms)).toEqual([300]);
    deadline.started[0]?.fire();
    const error = await pending;
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.retryable).toBe(true);
    expect(error.detail).toBe("request timed out after 300 ms");
  });

  test("request timeout: the same deadline covers a body that stalls after the headers", async () => {
    const closed = gate();
    const baseUrl = await serveRaw((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":[');
      res.on("close", () => closed.open());
    });
    const headers = gate();
    const deadline = manualDeadline();
    const timed = createHttpSourceClient({
      timeoutMs: 300,
      deadline: deadline.timer,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        headers.open();
        return response;
      },
    });
    const pending = failure(timed.fetchPage(connection(baseUrl), { path: "/leads", page: 1 }));
    await headers.opened;
    deadline.started[0]?.fire();
    const error = await pending;
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.detail).toBe("request timed out after 300 ms");
    // The body read was cancelled: the source sees the connection close.
    await closed.opened;
  });

  describe("the deadline survives garbage collection (undici 4068, 3644)", () => {
    test("the forced collection used below really collects", async () => {
      const ref = unreachableRef();
      // A WeakRef's target lives until the end of the job that created it.
      await new Promise((resolve) => setImmediate(resolve));
      forceGc();
      expect(ref.deref()).toBeUndefined();
    });

    test.each([
      ["the plain client", (): typeof fetch => fetch],
      ["the client over the guarded fetch", (): typeof fetch => createGuardedFetch({ allowLoopback: true })],
    ])(
      "%s: a body trickling one byte at a time fails at the deadline after a forced GC, as a retried request timeout",
      async (_name, transport) => {
        const closed = gate();
        let trickle: () => Promise<void> = async () => undefined;
        const baseUrl = await serveRaw((_req, res) => {
          res.writeHead(200, { "content-type": "application/json" });
          trickle = () => new Promise<void>((resolve) => res.write(" ", () => resolve()));
          res.write("{");
          res.on("close", () => closed.open());
        });
        const headers = gate();
        const inner = transport();
        const deadline = manualDeadline();
        const timed = createHttpSourceClient({
          deadline: deadline.timer,
          fetch: async (input, init) => {
            const response = await inner(input, init);
            headers.open();
            return response;
          },
        });
        const pending = failure(timed.fetchPage(connection(baseUrl), { path: "/leads", page: 1 }));
        await headers.opened;
        await trickle();
        // Let the client reach its body read, then collect what only weak references hold.
        await new Promise((resolve) => setImmediate(resolve));
        forceGc();
        await trickle();
        deadline.started[0]?.fire();
        const error = await pending;
        expect(error).toBeInstanceOf(SourceTransientError);
        expect(error.retryable).toBe(true);
        expect(error.detail).toBe(`request timed out after ${SOURCE_REQUEST_TIMEOUT_MS} ms`);
        // The read was cancelled, not left running: the source sees the connection close.
        await closed.opened;
      },
    );
  });

  test("a socket destroyed before the response is transient", async () => {
    const error = await fail({ destroy: true });
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.detail).toBe("connection closed before the response was complete");
  });

  test("a socket destroyed mid-body is transient", async () => {
    const baseUrl = await serveRaw((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"data":[', () => req.socket.destroy());
    });
    const error = await failure(client.fetchPage(connection(baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceTransientError);
  });

  test("connection refused is transient", async () => {
    const server = await startSourceServer(() => ({ json: envelope([]) }));
    await server.close();
    const error = await failure(client.fetchPage(connection(server.baseUrl), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.detail).toBe("connection refused");
  });

  test("a DNS failure is transient", async () => {
    // The resolver answers NXDOMAIN at once, so the test never depends on a real resolver or a timeout.
    const nxdomain = async (): Promise<never> => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND source.invalid"), { code: "ENOTFOUND" });
    };
    const dnsClient = createHttpSourceClient({ fetch: createGuardedFetch({ allowLoopback: false, lookup: nxdomain }) });
    const error = await failure(dnsClient.fetchPage(connection("http://source.invalid"), { path: "/leads", page: 1 }));
    expect(error).toBeInstanceOf(SourceTransientError);
    expect(error.detail).toBe("DNS lookup failed");
  });

  test("network errors carry no cause (fetch errors can hold the request and its headers)", async () => {
    const error = await fail({ destroy: true });
    expect(error.cause).toBeUndefined();
  });
});

describe("failure detail", () => {
  test("is the body's error string", async () => {
    expect((await fail({ status: 503, json: { error: "maintenance until 10:00" } })).detail).toBe(
      "maintenance until 10:00",
    );
  });

  test.each([
    ["no body", { status: 503 }],
    ["a body that is not JSON", { status: 503, body: "<h1>Service Unavailable</h1>" }],
    ["JSON without error", { status: 503, json: { message: "x" } }],
    ["an empty error", { status: 503, json: { error: "" } }],
    ["a blank error", { status: 503, json: { error: "   " } }],
    ["a non-string error", { status: 503, json: { error: { code: 1 } } }],
    ["a JSON array", { status: 503, json: ["error"] }],
    ["an error body over 64 KiB", { status: 503, json: { error: "x".repeat(70 * 1024) } }],
  ])("falls back to HTTP <status> with %s", async (_name, reply) => {
    expect((await fail(reply)).detail).toBe("HTTP 503");
  });

  test("is cut to 300 characters", async () => {
    const error = await fail({ status: 400, json: { error: "e".repeat(1000) } });
    expect(error.detail).toBe("e".repeat(300));
    expect(error.message).toBe("e".repeat(300));
  });

  test("an error echoing the token shows [redacted], never the token", async () => {
    const error = await fail({ status: 401, json: { error: `bad token ${TOKEN}; expected something else than ${TOKEN}` } });
    expect(error.detail).toBe("bad token [redacted]; expected something else than [redacted]");
    for (const text of [error.detail, error.message, String(error.stack), JSON.stringify(error)]) {
      expect(text).not.toContain(TOKEN);
    }
    expect(error.cause).toBeUndefined();
  });

  test("the token is redacted before the cut, so no part of it survives at the 300th character", async () => {
    const error = await fail({ status: 422, json: { error: `${"x".repeat(295)}${TOKEN}` } });
    expect(error.detail).toBe(`${"x".repeat(295)}[reda`);
    expect(error.detail).not.toContain(TOKEN.slice(0, 5));
  });

  describe("redaction: no run of 8+ characters of the token, its base64 or its URL-encoding survives", () => {
    const LONG_TOKEN = "sk_live_4eC39HqLyjWDarjtT1zdp7dcQx9Zr5mN8kVb2Wq";
    // Characters that encodeURIComponent escapes, so the URL-encoded form differs from the token.
    const SPECIAL_TOKEN = "k3y+With/Slash=And:Colon@At?Q&Amp#Hash";

    async function failWith(token: string, reply: Awaited<ReturnType<SourceHandler>>): Promise<SyncError> {
      const server = await serve(() => reply);
      return failure(client.fetchPage(connection(server.baseUrl, token), { path: "/leads", page: 1 }));
    }

    function expectClean(error: SyncError, ...fragments: string[]): void {
      expect(error.detail).toContain("[redacted]");
      for (const text of [error.detail, error.message, JSON.stringify(error)]) {
        for (const fragment of fragments) expect(text).not.toContain(fragment);
      }
    }

    test("the token's first 40 characters echoed in an error body", async () => {
      const error = await failWith(LONG_TOKEN, { status: 401, json: { error: `unknown key ${LONG_TOKEN.slice(0, 40)}...` } });
      expect(error.detail).toBe("unknown key [redacted]...");
      expectClean(error, LONG_TOKEN.slice(0, 8), LONG_TOKEN.slice(32, 40));
    });

    test("a middle 8-character run of the token in an error body", async () => {
      const run = LONG_TOKEN.slice(19, 27);
      const error = await failWith(LONG_TOKEN, { status: 403, json: { error: `key fragment ${run} is not allowed` } });
      expect(error.detail).toBe("key fragment [redacted] is not allowed");
    });

    test.each([
      ["standard base64", (token: string) => Buffer.from(token).toString("base64")],
      ["url-safe base64", (token: string) => Buffer.from(token).toString("base64url")],
      ["base64 of a longer text (Basic credentials)", (token: string) => Buffer.from(`user:${token}`).toString("base64")],
    ])("the token's %s in an error body", async (_name, encode) => {
      const encoded = encode(SPECIAL_TOKEN);
      const error = await failWith(SPECIAL_TOKEN, { status: 400, json: { error: `bad credentials ${encoded}` } });
      expect(error.detail).toMatch(/^bad credentials \S{0,8}\[redacted\]\S{0,3}$/);
      expectClean(error, encoded.slice(8, 16), encoded.slice(-12, -4));
    });

    test("the token URL-encoded in an error body", async () => {
      const encoded = encodeURIComponent(SPECIAL_TOKEN);
      expect(encoded).not.toBe(SPECIAL_TOKEN);
      const error = await failWith(SPECIAL_TOKEN, { status: 422, json: { error: `rejected ?token=${encoded}` } });
      expect(error.detail).toBe("rejected ?token=[redacted]");
    });

    test("a run of the token in a content-type header", async () => {
      const error = await failWith(LONG_TOKEN, {
        headers: { "content-type": `text/plain; key=${LONG_TOKEN.slice(5, 30)}` },
        body: "nope",
      });
      expect(error.detail).toBe("response body is not JSON (content-type text/plain; key=[redacted])");
    });

    test("a run of the token in a 5xx error body, which is retried and logged", async () => {
      const error = await failWith(LONG_TOKEN, { status: 503, json: { error: `down for ${LONG_TOKEN.slice(10, 21)}` } });
      expect(error).toBeInstanceOf(SourceTransientError);
      expect(error.detail).toBe("down for [redacted]");
    });

    test("a 7-character run is kept: shorter runs are ordinary text, not the token", async () => {
      const run = LONG_TOKEN.slice(8, 15);
      const error = await failWith(LONG_TOKEN, { status: 400, json: { error: `field ${run} is wrong` } });
      expect(error.detail).toBe(`field ${run} is wrong`);
    });
  });

  test("a content-type echoing the token is redacted in a not-JSON failure", async () => {
    const error = await fail({ headers: { "content-type": `text/plain; t=${TOKEN}` }, body: "nope" });
    expect(error).toBeInstanceOf(SourceHardError);
    expect(error.detail).toBe("response body is not JSON (content-type text/plain; t=[redacted])");
  });
});

/** A WeakRef whose target nothing else holds. */
function unreachableRef(): WeakRef<object> {
  return new WeakRef({ payload: new Array<number>(1024).fill(1) });
}
