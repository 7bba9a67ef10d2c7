import { describe, expect, test } from "vitest";
import { boundaryCostMs, segmentGaps, windows, type TimedRequest } from "../../../bin/bench/request-timeline";

const request = (label: string, slotAt: number, sentAt: number, arrivedAt: number): TimedRequest => ({ label, slotAt, sentAt, writtenAt: sentAt, arrivedAt });

describe("the bench's request timeline", () => {
  test("a window above the rate at the source is told apart from one the service sent: slots and sends counted on their own", () => {
    // Rate 2: slots 1,020 ms apart two by two; the first request arrives 40 ms after it was sent.
    const requests = [request("p1", 0, 5, 45), request("p2", 300, 305, 306), request("p3", 1_020, 1_030, 1_031)];
    const counted = windows(requests);
    expect(counted).toMatchObject({ slots: 2, sends: 2, arrivals: 3 });
    expect(counted.busiest.map((each) => each.label)).toEqual(["p1", "p2", "p3"]);
  });

  test("the window is half-open: two arrivals exactly 1,000 ms apart are in different windows", () => {
    expect(windows([request("a", 0, 0, 0), request("b", 1_000, 1_000, 1_000)]).arrivals).toBe(1);
  });

  test("page-task gaps are split by segment: a change of execution is a boundary, and only its excess over an ordinary gap is its cost", () => {
    const task = (executionId: string, startedAt: number, endedAt: number) => ({ state: "SyncPage", executionId, startedAt, endedAt });
    const gaps = segmentGaps([task("s1", 0, 10), task("s1", 11, 20), task("s2", 25, 30), task("s2", 31, 40), { state: "FinishRun", startedAt: 41, endedAt: 42 }]);
    expect(gaps).toEqual({ withinMs: [1, 1], boundaryMs: [5] });
    expect(boundaryCostMs(gaps)).toBe(4);
  });
});
