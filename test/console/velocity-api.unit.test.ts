import { describe, expect, it } from "vitest";
import { monthInWords, timeInWords } from "../../console/src/velocity-api";

describe("the velocity's times and months in words", () => {
  it("a time in a stage reads in the largest whole unit a person thinks in: minutes, hours, days", () => {
    expect(timeInWords(59)).toBe("under a minute");
    expect(timeInWords(60)).toBe("1 minute");
    expect(timeInWords(150)).toBe("3 minutes");
    expect(timeInWords(3600)).toBe("1 hour");
    expect(timeInWords(5 * 3600)).toBe("5 hours");
    expect(timeInWords(86_400)).toBe("1 day");
    expect(timeInWords(3 * 86_400 + 3600)).toBe("3 days");
    expect(timeInWords(400 * 86_400)).toBe("400 days");
  });

  it("a time rounded up to the next unit reads in that unit: never 60 minutes or 24 hours", () => {
    expect(timeInWords(3599)).toBe("1 hour");
    expect(timeInWords(59.5 * 60)).toBe("1 hour");
    expect(timeInWords(59.4 * 60)).toBe("59 minutes");
    expect(timeInWords(23.5 * 3600)).toBe("1 day");
    expect(timeInWords(23.4 * 3600)).toBe("23 hours");
  });

  it("no figure (nobody has left the stage) reads as not enough data, never as zero", () => {
    expect(timeInWords(null)).toBe("not enough data");
    expect(timeInWords(Number.NaN)).toBe("not enough data");
    expect(timeInWords(-1)).toBe("not enough data");
    expect(timeInWords(0)).toBe("under a minute");
  });

  it("a month is named, not numbered; a period the console cannot read is shown as sent", () => {
    expect(monthInWords("2026-02")).toBe("February 2026");
    expect(monthInWords("1970-01")).toBe("January 1970");
    expect(monthInWords("9999-12")).toBe("December 9999");
    expect(monthInWords("2026-13")).toBe("2026-13");
    expect(monthInWords("soon")).toBe("soon");
  });
});
