import { describe, expect, test } from "vitest";
import { limiterCallsMs } from "../../../bin/bench/dynamodb-call-timing";

describe("the bench's page accounting", () => {
  test("the limiter's wait subtracts only the limiter's own calls, not the connection read made at the same time", () => {
    // A page task reads its connection while it takes its slot: both calls finish inside acquire().
    const calls = [
      { label: "GetItem CONNECTION", ms: 5 },
      { label: "PutItem RATE", ms: 7 },
      { label: "GetItem RATE #2", ms: 2 },
    ];
    expect(limiterCallsMs(calls)).toBe(9);
    expect(limiterCallsMs([{ label: "GetItem CONNECTION", ms: 5 }])).toBe(0);
  });
});
