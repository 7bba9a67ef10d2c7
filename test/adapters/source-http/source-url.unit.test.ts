import { describe, expect, test } from "vitest";
import { SourceHardError } from "../../../lambdas/domain/core/errors";
import { sourcePageUrl } from "../../../lambdas/adapters/source-http/source-url";

describe("source page URL", () => {
  test("is {base_url}{path}?limit=100&page=N", () => {
    expect(sourcePageUrl("https://crm.example.com/api/v1", { path: "/pipelines", page: 1 })).toBe(
      "https://crm.example.com/api/v1/pipelines?limit=100&page=1",
    );
  });

  test("adds updated_since percent-encoded", () => {
    expect(
      sourcePageUrl("https://crm.example.com", { path: "/leads", page: 12, updatedSince: "2024-01-01T00:00:00+05:00" }),
    ).toBe("https://crm.example.com/leads?limit=100&page=12&updated_since=2024-01-01T00%3A00%3A00%2B05%3A00");
  });

  test("never doubles the slash after the base URL", () => {
    expect(sourcePageUrl("https://crm.example.com/api//", { path: "/users", page: 2 })).toBe(
      "https://crm.example.com/api/users?limit=100&page=2",
    );
  });

  test.each([["crm.example.com"], [""], ["file:///etc"], ["javascript:alert(1)"]])(
    "base URL %j is a hard failure",
    (baseUrl) => {
      expect(() => sourcePageUrl(baseUrl, { path: "/users", page: 1 })).toThrow(SourceHardError);
    },
  );
});
