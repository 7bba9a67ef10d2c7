import { describe, expect, test } from "vitest";
import { parsePeriod } from "../../../lambdas/domain/analytics/period";
import { InvalidFieldError } from "../../../lambdas/domain/onboarding/onboarding-errors";

const at = (iso: string) => new Date(iso);
const refused = (query: Record<string, string>) => {
  try {
    parsePeriod(query, at("2026-03-31T12:00:00.000Z"));
  } catch (error) {
    if (error instanceof InvalidFieldError) return { field: error.field, rule: error.rule };
  }
  return null;
};

describe("periods: whole UTC days, both ends included", () => {
  test("by default the last 30 UTC days, today included, whatever the hour", () => {
    expect(parsePeriod({}, at("2026-03-31T23:59:59.999Z"))).toEqual({ from: "2026-03-02", to: "2026-03-31" });
    expect(parsePeriod({}, at("2026-04-01T00:00:00.000Z"))).toEqual({ from: "2026-03-03", to: "2026-04-01" });
    expect(parsePeriod({ to: "2024-03-01" }, at("2026-03-31T12:00:00.000Z"))).toEqual({ from: "2024-02-01", to: "2024-03-01" }) // February 2024 has 29 days;
  });

  test("a period is at most 366 days: a leap year fits, one day more is refused naming from", () => {
    expect(parsePeriod({ from: "2024-01-01", to: "2024-12-31" }, at("2026-03-31T12:00:00.000Z"))).toEqual({ from: "2024-01-01", to: "2024-12-31" });
    expect(refused({ from: "2023-12-31", to: "2024-12-31" })).toMatchObject({ field: "from" });
  });

  test("from after to is refused; one day is a period", () => {
    expect(refused({ from: "2026-04-01", to: "2026-03-31" })).toEqual({ field: "from", rule: "must not be after to" });
    expect(parsePeriod({ from: "2026-03-31", to: "2026-03-31" }, at("2026-01-01T00:00:00.000Z"))).toEqual({ from: "2026-03-31", to: "2026-03-31" });
  });

  test("only real dates written YYYY-MM-DD, from the year 0000 to 9999", () => {
    for (const bad of ["2026-02-29", "2026-2-1", "2026-02-01T00:00:00Z", "", "20260201", "+02026-01-01", "2026-13-01", "２０２６-01-01"]) {
      expect(refused({ from: bad, to: "2026-03-31" }), bad).toMatchObject({ field: "from", rule: "must be a date, YYYY-MM-DD" });
    }
    expect(parsePeriod({ from: "2024-02-29", to: "2024-03-01" }, at("2026-03-31T12:00:00.000Z")).from).toBe("2024-02-29");
    expect(parsePeriod({ from: "9999-12-31", to: "9999-12-31" }, at("2026-03-31T12:00:00.000Z")).to).toBe("9999-12-31");
    expect(parsePeriod({ from: "0001-01-01", to: "0001-01-01" }, at("2026-03-31T12:00:00.000Z")).from).toBe("0001-01-01");
  });
});
