import { afterEach, expect, test } from "vitest";
import { envelope, startSourceServer, type SourceServer } from "./source-server";

let server: SourceServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test("records requests and answers JSON with a Content-Length", async () => {
  server = await startSourceServer(({ requestIndex, query }) => ({
    json: envelope([{ id: `${requestIndex}-${query.get("page")}` }], true),
  }));
  const response = await fetch(`${server.baseUrl}/leads?page=2&updated_since=2024-01-01T00%3A00%3A00%2B05%3A00`, {
    headers: { authorization: "Bearer t" },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  expect(response.headers.get("content-length")).not.toBeNull();
  expect(await response.json()).toEqual({ data: [{ id: "0-2" }], has_more: true });
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]).toMatchObject({
    method: "GET",
    path: "/leads",
    query: { page: "2", updated_since: "2024-01-01T00:00:00+05:00" },
    url: "/leads?page=2&updated_since=2024-01-01T00%3A00%3A00%2B05%3A00",
  });
  expect(server.requests[0]?.headers.authorization).toBe("Bearer t");
  expect(typeof server.requests[0]?.receivedAt).toBe("number");
});

test("a body array is sent chunked, without a Content-Length", async () => {
  server = await startSourceServer(() => ({ status: 503, body: ["ab", "cd"] }));
  const response = await fetch(server.baseUrl);
  expect(response.status).toBe(503);
  expect(response.headers.get("content-length")).toBeNull();
  expect(response.headers.get("transfer-encoding")).toBe("chunked");
  expect(await response.text()).toBe("abcd");
});

test("a handler that throws answers 500 naming it", async () => {
  server = await startSourceServer(() => {
    throw new Error("boom");
  });
  const response = await fetch(server.baseUrl);
  expect(response.status).toBe(500);
  expect(await response.json()).toEqual({ error: "test handler threw: Error: boom" });
});

test("destroy cuts the socket; close() ends a hanging request", async () => {
  let arrived!: () => void;
  const hangArrived = new Promise<void>((resolve) => (arrived = resolve));
  server = await startSourceServer(({ path }) => {
    if (path === "/cut") return { destroy: true };
    arrived();
    return { hang: true };
  });
  await expect(fetch(`${server.baseUrl}/cut`)).rejects.toThrow();
  const hanging = fetch(`${server.baseUrl}/hang`);
  // close() while the request is hanging, not before it has arrived.
  await hangArrived;
  await server.close();
  server = undefined;
  await expect(hanging).rejects.toThrow();
});
