import { describe, expect, test } from "vitest";
import { retryAfterSeconds } from "../../../lambdas/domain/source-contract/retry-after";

const NOW = Date.parse("2025-01-15T12:00:00.000Z");

describe("Retry-After: whole seconds, floored to 1", () => {
  test.each([
    ["10", 10],
    [" 10 ", 10],
    ["1.01", 2],
    ["0.5", 1],
    ["0", 1],
    ["86400", 86400],
  ])("delta-seconds %j -> %d", (header, seconds) => {
    expect(retryAfterSeconds(header, NOW)).toBe(seconds);
  });

  test.each([
    ["Wed, 15 Jan 2025 12:00:30 GMT", 30],
    ["Wednesday, 15-Jan-25 12:00:30 GMT", 30],
    ["Wed, 15 Jan 2025 11:59:00 GMT", 1],
  ])("HTTP-date %j -> %d (from now, never below 1)", (header, seconds) => {
    expect(retryAfterSeconds(header, NOW)).toBe(seconds);
  });

  test("an HTTP-date with a fraction of a second to go rounds up", () => {
    expect(retryAfterSeconds("Wed, 15 Jan 2025 12:00:30 GMT", NOW + 500)).toBe(30);
    expect(retryAfterSeconds("Wed, 15 Jan 2025 12:00:30 GMT", NOW + 29_900)).toBe(1);
  });

  test.each([[null], [undefined], [""], ["soon"], ["-5"], ["1e3"], ["Infinity"], ["12abc"], ["2025-01-15T12:00:30Z"]])(
    "missing or unreadable %j -> 1",
    (header) => {
      expect(retryAfterSeconds(header, NOW)).toBe(1);
    },
  );
});
