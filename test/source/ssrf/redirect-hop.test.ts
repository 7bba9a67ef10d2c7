import { describe, expect, test } from "vitest";
import { type Hop, nextHop } from "../../../lambdas/source/ssrf/redirect-hop";

function hop(method: string, url = "https://crm.example.com/a"): Hop {
  return {
    url: new URL(url),
    method,
    headers: new Headers({ authorization: "Bearer t", cookie: "c=1", "content-type": "text/plain", accept: "*/*" }),
    body: method === "GET" ? null : new TextEncoder().encode("x").buffer,
  };
}

describe("the request a redirect leads to", () => {
  test.each([
    [301, "POST", "GET"],
    [302, "POST", "GET"],
    [303, "POST", "GET"],
    [303, "PUT", "GET"],
    [303, "HEAD", "HEAD"],
    [301, "PUT", "PUT"],
    [307, "POST", "POST"],
    [308, "POST", "POST"],
  ])("%i after %s is %s", (status, method, expected) => {
    const next = nextHop(hop(method), status, new URL("https://crm.example.com/b"));
    expect(next.method).toBe(expected);
    if (expected === "GET" && method !== "GET") {
      expect(next.body).toBeNull();
      expect(next.headers.has("content-type")).toBe(false);
    } else {
      expect(next.body).not.toBeNull();
    }
  });

  test("same origin keeps the credentials", () => {
    const next = nextHop(hop("GET"), 302, new URL("https://crm.example.com:443/b"));
    expect(next.headers.get("authorization")).toBe("Bearer t");
    expect(next.headers.get("cookie")).toBe("c=1");
  });

  test.each(["http://crm.example.com/b", "https://other.example.com/b", "https://crm.example.com:8443/b"])(
    "a change of scheme, host or port (%s) drops the credentials only",
    (location) => {
      const next = nextHop(hop("GET"), 302, new URL(location));
      expect(next.headers.has("authorization")).toBe(false);
      expect(next.headers.has("cookie")).toBe(false);
      expect(next.headers.get("accept")).toBe("*/*");
      expect(next.url.href).toBe(location);
    },
  );
});
