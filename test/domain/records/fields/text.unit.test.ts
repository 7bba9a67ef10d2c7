import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../../lambdas/domain/core/limits";
import { codePointLength, truncateText } from "../../../../lambdas/domain/core/characters";
import { nullableText, recordId, referenceText, truncatedText } from "../../../../lambdas/domain/records/fields/text";
import { hasLoneSurrogate } from "../rejection";

describe("truncateText", () => {
  test("text within the limit is returned unchanged", () => {
    expect(truncateText("abc", 3)).toBe("abc");
  });

  test("text over the limit keeps its first N characters", () => {
    expect(truncateText("abcdef", 4)).toBe("abcd");
  });

  test("truncation counts code points: 300 '😀' become 255 whole '😀'", () => {
    const cut = truncateText("😀".repeat(300), 255);
    expect(cut).toBe("😀".repeat(255));
    expect(codePointLength(cut)).toBe(255);
    expect(hasLoneSurrogate(cut)).toBe(false);
  });

  test("truncation never splits a surrogate pair after mixed text", () => {
    const cut = truncateText("a😀b😀c", 4);
    expect(cut).toBe("a😀b😀");
    expect(hasLoneSurrogate(cut)).toBe(false);
  });

  test("text of N code points but more UTF-16 units is not cut", () => {
    expect(truncateText("😀".repeat(5), 5)).toBe("😀".repeat(5));
  });
});

describe("codePointLength", () => {
  test("a surrogate pair counts as one character", () => {
    expect(codePointLength("a😀")).toBe(2);
  });
});

describe("text building blocks", () => {
  test("optional text: null and omitted become null", () => {
    expect(v.parse(nullableText, null)).toBeNull();
    expect(v.parse(nullableText, undefined)).toBeNull();
  });

  test("optional text: a non-string fails with the type rule", () => {
    for (const value of [1, true, {}, []]) {
      const result = v.safeParse(truncatedText(10), value);
      expect(result.success).toBe(false);
      expect(result.issues?.[0]?.message).toBe("must be a string or null");
    }
  });

  test("optional text: truncated to its limit", () => {
    expect(v.parse(truncatedText(3), "abcdef")).toBe("abc");
  });

  test("optional text: an empty string is kept", () => {
    expect(v.parse(truncatedText(3), "")).toBe("");
  });

  test("reference text: truncated to TEXT_LIMITS.reference", () => {
    expect(v.parse(referenceText, "r".repeat(TEXT_LIMITS.reference + 1))).toBe("r".repeat(TEXT_LIMITS.reference));
  });

  test("required id: 1 to 255 characters pass unchanged", () => {
    expect(v.parse(recordId, "x")).toBe("x");
    expect(v.parse(recordId, "😀".repeat(TEXT_LIMITS.id))).toBe("😀".repeat(TEXT_LIMITS.id));
  });

  test("required id: empty, over-length or non-string fails", () => {
    for (const value of ["", "x".repeat(TEXT_LIMITS.id + 1), 12, null, undefined]) {
      expect(v.safeParse(recordId, value).success).toBe(false);
    }
  });
});
