import { describe, expect, test } from "vitest";
import {
  ConnectionNotFoundError,
  RateLimitSlotsStaleError,
  SOURCE_REQUEST_ERRORS,
  SourceAuthError,
  SourceHardError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  StoreUnavailableError,
} from "../../../lambdas/domain/core/errors";
import { AHEAD_STATE_MAX_BYTES } from "../../../lambdas/domain/core/limits";
import type { StoredConnection } from "../../../lambdas/domain/core/connection";
import { aheadOf, answerOf, answers, isRetriedAnswer, type AheadRequest, type EarlyOutcome } from "../../../lambdas/domain/sync/fetch-ahead";

/** The early answer's trip through the state: exact, by class, and within the state's budget in UTF-8 bytes. */

const request: AheadRequest = { entity: "leads", page: 2, updated_since: "2026-01-01T00:00:00+00:00" };
const connection = { sync_since: "2026-01-01T00:00:00.000Z", rate_limit: 7 } as StoredConnection;

function handed(outcome: EarlyOutcome, stateBytes = 500) {
  const result = aheadOf(outcome, request, stateBytes);
  if (!("ahead" in result)) throw new Error(`dropped: ${result.dropped}`);
  return result.ahead;
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

describe("an early page's answer in the state", () => {
  test("a page comes back exactly as the source sent it: key order, __proto__ keys, lone surrogates, numbers and has_more", () => {
    const data = JSON.parse('[{"id":"a\\ud800","__proto__":{"x":1},"price":1e21,"z":null,"a":[1,"2"]},{"id":"b"}]') as unknown[];
    const ahead = handed({ kind: "page", page: { data, hasMore: true }, connection });
    const back = answerOf(ahead);
    expect(JSON.stringify(back.data)).toBe(JSON.stringify(data));
    expect(Object.keys(back.data[0] as object)).toEqual(["id", "__proto__", "price", "z", "a"]);
    expect(back.hasMore).toBe(true);
    expect(ahead.connection).toEqual({ sync_since: connection.sync_since, rate_limit: 7 });
  });

  const sourceErrors = [
    ["401", new SourceAuthError("the source refused the token (401): invalid token", { httpStatus: 401 })],
    ["404", new SourceNotImplementedError("not implemented", { httpStatus: 404 })],
    ["429", new SourceThrottledError("slow down", 17, { rule: "rate.retry-after" })],
    ["5xx", new SourceTransientError("HTTP 503", { httpStatus: 503 })],
    ["unreachable", new SourceTransientError("connection refused", { rule: "source.reachable", sourceDown: true })],
    ["hard", new SourceHardError("not JSON", { httpStatus: 200 })],
    ["3xx", new SourceRedirectError("the source answered 302 to https://elsewhere.example", { httpStatus: 302 })],
  ] as const;

  test("every error a source request ends in is handed on: the cases below cover SOURCE_REQUEST_ERRORS, each class", () => {
    expect(new Set(sourceErrors.map(([, error]) => error.constructor))).toEqual(new Set(SOURCE_REQUEST_ERRORS));
  });

  test.each(sourceErrors)("a source error (%s) is thrown by the page's task as its own request's: same class, detail, status, rule and its own fields", (_, error) => {
    const again = thrown(() => answerOf(handed({ kind: "error", error, connection })));
    expect(again).toBeInstanceOf(error.constructor);
    expect(again).toMatchObject({ name: error.name, detail: error.detail, httpStatus: error.httpStatus, ruleId: error.ruleId });
    if (error instanceof SourceThrottledError) expect((again as SourceThrottledError).retryAfterSeconds).toBe(17);
    if (error instanceof SourceTransientError) expect((again as SourceTransientError).sourceDown).toBe(error.sourceDown);
  });

  test("only a 5xx or a time-out is the Retry's to re-run: the page's task throws it once, then asks itself", () => {
    expect(isRetriedAnswer(handed({ kind: "error", error: new SourceTransientError("HTTP 502"), connection }))).toBe(true);
    expect(isRetriedAnswer(handed({ kind: "error", error: new SourceThrottledError("slow", 1), connection }))).toBe(false);
    expect(isRetriedAnswer(handed({ kind: "page", page: { data: [], hasMore: false }, connection }))).toBe(false);
  });

  test.each([
    ["the connection read", new ConnectionNotFoundError("gone")],
    ["the store", new StoreUnavailableError("busy")],
    ["the slot", new RateLimitSlotsStaleError("stale")],
    ["a bug", new TypeError("x is undefined")],
  ])("what failed before a request left (%s) is not handed on: the page's task does it again itself", (_, error) => {
    expect(aheadOf({ kind: "error", error, connection }, request, 500)).toEqual({ dropped: "not-an-answer" });
  });

  test("an answer whose request's connection read is not known is not handed on", () => {
    expect(aheadOf({ kind: "error", error: new SourceHardError("x") }, request, 500)).toEqual({ dropped: "not-an-answer" });
  });

  test(`the state stays within AHEAD_STATE_MAX_BYTES (${AHEAD_STATE_MAX_BYTES}) counted in UTF-8 bytes: at the limit it is handed on, one byte over it is not`, () => {
    // "é" is 2 bytes in UTF-8 and 1 UTF-16 unit: a count in characters would let the state through.
    const page: EarlyOutcome = { kind: "page", page: { data: [{ id: "é".repeat(1000) }], hasMore: true }, connection };
    const size = Buffer.byteLength(JSON.stringify({ ahead: handed(page, 0) }), "utf8");
    expect(size).toBeGreaterThan(2000);
    expect("ahead" in aheadOf(page, request, AHEAD_STATE_MAX_BYTES - size)).toBe(true);
    expect(aheadOf(page, request, AHEAD_STATE_MAX_BYTES - size + 1)).toEqual({ dropped: "over-budget" });
  });

  test("a page too deep for JSON.stringify is not handed on (its task fetches it again and refuses it by rule)", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(aheadOf({ kind: "page", page: { data: [deep], hasMore: true }, connection }, request, 500)).toEqual({ dropped: "not-serialisable" });
  });

  test("an ahead answers only its own request: another entity, page or updated_since is ignored", () => {
    const ahead = handed({ kind: "page", page: { data: [], hasMore: false }, connection });
    expect(answers(ahead, request)).toBe(true);
    expect(answers(ahead, { ...request, page: 3 })).toBe(false);
    expect(answers(ahead, { ...request, entity: "contacts" })).toBe(false);
    expect(answers(ahead, { ...request, updated_since: null })).toBe(false);
    expect(answers(undefined, request)).toBe(false);
  });
});
