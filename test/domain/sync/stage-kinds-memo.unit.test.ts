import { describe, expect, test } from "vitest";
import type { StageKinds } from "../../../lambdas/domain/core/ports/record-store";
import { memoStageKinds, memoUserIds } from "../../../lambdas/domain/sync/stage-kinds-memo";

/** A store whose stage kinds the test sets, counting reads. */
function store(initial: StageKinds) {
  const state = { kinds: initial, reads: 0, fail: false };
  return {
    state,
    async getStageKinds(): Promise<StageKinds> {
      state.reads += 1;
      if (state.fail) throw new Error("store unavailable");
      return state.kinds;
    },
  };
}
const kinds = (kind: "open" | "won"): StageKinds => new Map([["p1", new Map([["s1", kind]])]]);

describe("stage kinds, once per run", () => {
  test("every leads page of one run shares one read; the next run reads again and sees new kinds", async () => {
    const records = store(kinds("open"));
    const ofRun = memoStageKinds(records);
    expect(await ofRun("c1", "run-1")).toEqual(kinds("open"));
    expect(await ofRun("c1", "run-1")).toEqual(kinds("open"));
    expect(records.state.reads).toBe(1);

    records.state.kinds = kinds("won");
    expect(await ofRun("c1", "run-2")).toEqual(kinds("won"));
    expect(await ofRun("c2", "run-1")).toEqual(kinds("won"));
    expect(records.state.reads).toBe(3);
  });

  test("a failed read is not kept: the next page reads again", async () => {
    const records = store(kinds("open"));
    records.state.fail = true;
    const ofRun = memoStageKinds(records);
    await expect(ofRun("c1", "run-1")).rejects.toThrow("store unavailable");
    records.state.fail = false;
    expect(await ofRun("c1", "run-1")).toEqual(kinds("open"));
    expect(records.state.reads).toBe(2);
  });

  test("the memo is bounded: the oldest run is dropped beyond the bound", async () => {
    const records = store(kinds("open"));
    const ofRun = memoStageKinds(records, 2);
    await ofRun("c1", "run-1");
    await ofRun("c1", "run-2");
    await ofRun("c1", "run-3");
    await ofRun("c1", "run-1");
    expect(records.state.reads).toBe(4);
  });
});

describe("user ids, once per run", () => {
  test("every page of one run shares one read of the connection's user ids; the next run reads again", async () => {
    let reads = 0;
    const ofRun = memoUserIds({ getUserIds: async () => new Set([`user-${++reads}`]) });
    expect(await ofRun("c1", "run-1")).toEqual(new Set(["user-1"]));
    expect(await ofRun("c1", "run-1")).toEqual(new Set(["user-1"]));
    expect(await ofRun("c1", "run-2")).toEqual(new Set(["user-2"]));
    expect(reads).toBe(2);
  });
});
