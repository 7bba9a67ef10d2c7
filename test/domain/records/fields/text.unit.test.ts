import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../../lambdas/domain/core/limits";
import { codePointLength, truncateText } from "../../../../lambdas/domain/core/characters";
import { createHash } from "node:crypto";
import { lossReasonId } from "../../../../lambdas/domain/source-contract/loss-reason-id";
import { ContactSchema } from "../../../../lambdas/domain/records/contact";
import { ID_TEXT_RULE, nullableText, recordId, referenceText, truncatedText } from "../../../../lambdas/domain/records/fields/text";
import { parseRecord } from "../../../../lambdas/domain/records/parse-record";
import { contactRecord } from "../../../builders/source-records";
import { hasLoneSurrogate, rejection } from "../rejection";

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

describe("record.id-unicode: an id is kept as the exact string the source sent, or its page fails", () => {
  test("record.id-unicode: an id holding a lone surrogate (high or low) is refused with the rule that says why", () => {
    for (const id of ["a\ud800", "a\udc00", "\udfff", "x\ud83d"]) {
      const error = rejection(ContactSchema, contactRecord({ id }), 2);
      expect(error).toMatchObject({ field: "id", rule: ID_TEXT_RULE });
      // The detail writes the lone surrogate as its escape: no UTF-8 store or log could keep it.
      expect(hasLoneSurrogate(error.detail)).toBe(false);
    }
    expect(rejection(ContactSchema, contactRecord({ id: "a\ud800" })).recordId).toBe("a\\ud800");
  });

  test("record.id-unicode: whole surrogate pairs and every other character are ids like any other", () => {
    for (const id of ["a😀", "\ud83d\ude00", "déjà", "\u0000", "\ufffd"]) expect(parseRecord(ContactSchema, contactRecord({ id }), 0).id).toBe(id);
  });

  test("record.id-unicode: loss reasons that differ only in a lone surrogate keep distinct ids; valid text keeps the id it had", () => {
    expect(lossReasonId("lost\ud800")).not.toBe(lossReasonId("lost\udc00"));
    expect(lossReasonId("lost\ud800")).not.toBe(lossReasonId("lost\ufffd"));
    expect(lossReasonId("Too expensive")).toBe(`lr_${createHash("sha256").update("Too expensive", "utf8").digest("hex").slice(0, 32)}`);
  });
});
