import { describe, expect, test } from "vitest";
import { parseTimestamp } from "../../../../lambdas/domain/records/fields/timestamp";

describe("parseTimestamp", () => {
  test.each([
    ["explicit positive offset", "2026-03-01T10:00:00+02:00", "2026-03-01T08:00:00.000Z"],
    ["negative offset", "2026-03-01T10:00:00-05:00", "2026-03-01T15:00:00.000Z"],
    ["offset without colon (+HHMM)", "2026-03-01T10:00:00+0530", "2026-03-01T04:30:00.000Z"],
    ["offset crossing midnight backwards", "2026-03-01T01:00:00+03:00", "2026-02-28T22:00:00.000Z"],
    ["trailing Z", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00.000Z"],
    ["lowercase t and z", "2026-03-01t10:00:00z", "2026-03-01T10:00:00.000Z"],
    ["no zone is read as UTC", "2026-03-01T10:00:00", "2026-03-01T10:00:00.000Z"],
    ["single space separator", "2026-03-01 10:00:00Z", "2026-03-01T10:00:00.000Z"],
    ["space separator with offset", "2026-03-01 10:00:00+01:00", "2026-03-01T09:00:00.000Z"],
    ["bare date is 00:00 UTC", "2026-03-01", "2026-03-01T00:00:00.000Z"],
    ["fractional seconds of 3 digits", "2026-03-01T10:00:00.123Z", "2026-03-01T10:00:00.123Z"],
    ["fractional seconds of 1 digit", "2026-03-01T10:00:00.5Z", "2026-03-01T10:00:00.500Z"],
    ["fractional seconds beyond ms are truncated", "2026-03-01T10:00:00.123456Z", "2026-03-01T10:00:00.123Z"],
    ["fractional seconds never round up", "2026-12-31T23:59:59.9999999Z", "2026-12-31T23:59:59.999Z"],
    ["fractional seconds with an offset", "2026-03-01T10:00:00.25-01:00", "2026-03-01T11:00:00.250Z"],
    ["leap day of a leap year", "2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["leap day of a 400-year leap year", "2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"],
    ["years below 100 are not read as 19xx", "0050-06-01T00:00:00Z", "0050-06-01T00:00:00.000Z"],
  ])("accepted form: %s", (_rule, input, expected) => {
    expect(parseTimestamp(input)).toBe(expected);
  });

  test.each([
    ["February 30", "2026-02-30"],
    ["February 29 of a non-leap year", "2025-02-29"],
    ["February 29 of a non-leap century", "1900-02-29"],
    ["April 31", "2026-04-31T00:00:00Z"],
    ["month 13", "2026-13-01"],
    ["month 0", "2026-00-10"],
    ["day 0", "2026-01-00"],
    ["hour 24", "2026-03-01T24:00:00Z"],
    ["minute 60", "2026-03-01T10:60:00Z"],
    ["second 60", "2026-03-01T10:00:60Z"],
    ["offset minute 60", "2026-03-01T10:00:00+01:60"],
    ["garbage text", "yesterday"],
    ["empty string", ""],
    ["time without seconds", "2026-03-01T10:00"],
    ["two spaces as separator", "2026-03-01  10:00:00"],
    ["surrounding whitespace", " 2026-03-01"],
    ["trailing dot without digits", "2026-03-01T10:00:00.Z"],
    ["slashes", "2026/03/01"],
    ["two-digit year", "26-03-01"],
  ])("unparseable becomes null: %s", (_rule, input) => {
    expect(parseTimestamp(input)).toBeNull();
  });

  test.each([
    ["number", 1_767_225_600_000],
    ["boolean", true],
    ["object", { date: "2026-03-01" }],
    ["array", ["2026-03-01"]],
    ["null", null],
    ["undefined", undefined],
  ])("non-string becomes null: %s", (_rule, input) => {
    expect(parseTimestamp(input)).toBeNull();
  });

  test("a timestamp read again gives the same answer, also after the memo has been filled and emptied", () => {
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
    // More distinct texts than the memo keeps, twice over, with an unparseable one among them.
    const texts = Array.from({ length: 10_000 }, (_, n) => (n % 1_000 === 7 ? `${day(n)}T25:00:00Z` : `${day(n)}T10:00:00+02:00`));
    const first = texts.map((text) => parseTimestamp(text));
    const again = texts.map((text) => parseTimestamp(text));
    expect(again).toEqual(first);
    expect(first[7]).toBeNull();
    expect(first[8]).toBe(`${day(8)}T08:00:00.000Z`);
    expect(first.filter((value) => value === null)).toHaveLength(10);
  });

  test("a UTC timestamp comes back exactly as toISOString writes the same instant (the UTC form is built without a Date)", () => {
    // Years 0000-9999 (toISOString's 4-digit range), every zero-offset form, fractions cut or padded to 3 digits.
    // The last day of February at three times of day; setUTCFullYear because Date.UTC reads years 0-99 as 19xx.
    const lastOfFebruary = (year: number) => (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28);
    const instants = [0, 1, 99, 100, 1969, 1970, 2000, 2024, 2026, 9999].flatMap((year) =>
      [0, 59_123, 86_399_999].map((msOfDay) => new Date(msOfDay).setUTCFullYear(year, 1, lastOfFebruary(year))),
    );
    for (const instant of instants) {
      const iso = new Date(instant).toISOString();
      const [date, time] = [iso.slice(0, 10), iso.slice(11, 19)];
      const fraction = iso.slice(20, 23);
      for (const text of [`${date}T${time}.${fraction}Z`, `${date}t${time}.${fraction}9z`, `${date} ${time}.${fraction}+00:00`, `${date}T${time}.${fraction}-0000`]) {
        expect(parseTimestamp(text), text).toBe(iso);
      }
      expect(parseTimestamp(`${date}T${time}`)).toBe(`${date}T${time}.000Z`);
      expect(parseTimestamp(date)).toBe(`${date}T00:00:00.000Z`);
    }
  });

  test("a text longer than any timestamp is read, never kept: the same answer each time", () => {
    const long = `2026-03-01T10:00:00.${"1".repeat(100)}Z`;
    expect(parseTimestamp(long)).toBe("2026-03-01T10:00:00.111Z");
    expect(parseTimestamp(long)).toBe("2026-03-01T10:00:00.111Z");
    expect(parseTimestamp(`${"x".repeat(1_000)}`)).toBeNull();
  });
});
