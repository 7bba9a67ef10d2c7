import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { describe, expect, inject, test } from "vitest";
import { build } from "./stack-fixture";

describe("the stack fixture", () => {
  test("a synth leaves nothing in the system's temporary folder: each App writes into its own folder in the run's scratch folder", () => {
    const first = build().app.outdir;
    const second = build().app.outdir;
    expect(dirname(first)).toBe(inject("scratchDir"));
    expect(dirname(second)).toBe(inject("scratchDir"));
    // One folder per App: a second synth never overwrites the assembly a test still reads.
    expect(second).not.toBe(first);
    expect(inject("scratchDir").startsWith(tmpdir())).toBe(true);
  });

  test("an App given its own outdir keeps it", () => {
    const outdir = `${inject("scratchDir")}/given`;
    expect(build(undefined, { outdir }).app.outdir).toBe(outdir);
  });
});
