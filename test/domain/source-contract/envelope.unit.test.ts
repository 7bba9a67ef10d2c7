import { describe, expect, test } from "vitest";
import { SourceHardError } from "../../../lambdas/domain/core/errors";
import { parseEnvelope } from "../../../lambdas/domain/source-contract/envelope";

describe("envelope", () => {
  test("data is passed on unvalidated; page and limit echoes are ignored", () => {
    const data = [{ id: "1" }, "not even an object", null];
    expect(parseEnvelope({ data, has_more: true, page: 7, limit: 5, extra: {} })).toEqual({ data, hasMore: true });
  });

  test("a missing or null data is an empty page", () => {
    expect(parseEnvelope({ has_more: true })).toEqual({ data: [], hasMore: true });
    expect(parseEnvelope({ data: null, has_more: false })).toEqual({ data: [], hasMore: false });
  });

  test.each([[undefined], [null], [false], [0], [""]])("has_more %j ends paging", (value) => {
    expect(parseEnvelope({ data: [], has_more: value }).hasMore).toBe(false);
  });

  test.each([["true"], ["false"], [1], [-1], [{}], [[]]])("has_more %j is a broken envelope naming has_more", (value) => {
    expect(() => parseEnvelope({ data: [], has_more: value })).toThrow(SourceHardError);
    expect(() => parseEnvelope({ data: [], has_more: value })).toThrow("envelope field has_more is not a boolean");
  });

  test.each([["[]"], [{}], [1], [true]])("data %j that is not an array is a broken envelope naming data", (value) => {
    expect(() => parseEnvelope({ data: value, has_more: false })).toThrow("envelope field data is not an array");
  });

  test.each([[[]], [[{ data: [] }]], [null], ["x"], [3], [true]])("%j is not an envelope", (body) => {
    expect(() => parseEnvelope(body)).toThrow("response body is not a JSON object");
  });
});
