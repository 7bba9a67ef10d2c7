import { describe, expect, test } from "vitest";
import { createSecretRedactor, redactSecret } from "../../../lambdas/domain/source-contract/redact-secret";

const TOKEN = "sk_live_4eC39HqLyjWDarjtT1zdp7dcQx9Zr5mN8kVb2Wq";

describe("redactSecret: any run of 8 or more characters of the secret or its encodings", () => {
  test("the whole secret, every time it appears", () => {
    expect(redactSecret(`a ${TOKEN} b ${TOKEN}`, TOKEN)).toBe("a [redacted] b [redacted]");
  });

  test.each([0, 1, 17, TOKEN.length - 8])("an 8-character run starting at %i", (start) => {
    const run = TOKEN.slice(start, start + 8);
    expect(redactSecret(`x ${run} y`, TOKEN)).toBe("x [redacted] y");
  });

  test("a 7-character run is kept (ordinary words and numbers must stay readable)", () => {
    const run = TOKEN.slice(3, 10);
    expect(redactSecret(`x ${run} y`, TOKEN)).toBe(`x ${run} y`);
  });

  test("a run glued to other text is cut out, the other text kept", () => {
    expect(redactSecret(`prefix${TOKEN.slice(0, 40)}suffix`, TOKEN)).toBe("prefix[redacted]suffix");
  });

  test("overlapping and adjacent runs become one [redacted]", () => {
    expect(redactSecret(`${TOKEN.slice(0, 12)}${TOKEN.slice(4, 20)}`, TOKEN)).toBe("[redacted]");
  });

  test.each([
    ["base64", Buffer.from(TOKEN).toString("base64")],
    ["base64url", Buffer.from(TOKEN).toString("base64url")],
    ["base64 shifted by one byte", Buffer.from(`:${TOKEN}`).toString("base64").slice(2, -2)],
    ["base64 shifted by two bytes", Buffer.from(`u:${TOKEN}`).toString("base64").slice(3, -2)],
  ])("its %s form", (_name, encoded) => {
    const redacted = redactSecret(`enc=${encoded};`, TOKEN);
    expect(redacted).toMatch(/^enc=.{0,3}\[redacted\].{0,3};$/);
  });

  test("an 8-character run of its base64 form", () => {
    const run = Buffer.from(TOKEN).toString("base64").slice(20, 28);
    expect(redactSecret(`b64 ${run}`, TOKEN)).toBe("b64 [redacted]");
  });

  test("its URL-encoded form, with upper- or lower-case escapes", () => {
    const special = "a+b/c=d:e@f?g&h#i";
    const upper = encodeURIComponent(special);
    expect(redactSecret(`q=${upper}`, special)).toBe("q=[redacted]");
    // The secret is lower-case, so this lowers only the hex digits of the escapes.
    expect(redactSecret(`q=${upper.toLowerCase()}`, special)).toBe("q=[redacted]");
  });

  test("a secret shorter than 8 characters is redacted whole where it stands, never by its pieces", () => {
    expect(redactSecret("abc12 and abc1", "abc12")).toBe("[redacted] and abc1");
  });

  test("an empty secret redacts nothing", () => {
    expect(redactSecret("nothing to hide", "")).toBe("nothing to hide");
  });

  test("text without the secret comes back unchanged, surrogate pairs intact", () => {
    expect(redactSecret("😀 déjà vu", TOKEN)).toBe("😀 déjà vu");
  });

  test("a token of 4 KB and a 300-character detail: the prepared redactor is reusable", () => {
    const big = Array.from({ length: 4096 }, (_, index) => String.fromCharCode(33 + ((index * 7919) % 94))).join("");
    const redact = createSecretRedactor(big);
    const detail = `${"e".repeat(140)}${big.slice(1000, 1020)}${"e".repeat(140)}`;
    expect(redact(detail)).toBe(`${"e".repeat(140)}[redacted]${"e".repeat(140)}`);
    expect(redact("e".repeat(300))).toBe("e".repeat(300));
  });
});

describe("a short token never garbles ordinary words: hidden where it stands as the token, in any of its whole forms", () => {
  const DETAIL = "the source answered 401: the token e is not valid here (e)";

  test("a short token never garbles ordinary words: a one-character token hides only where it stands alone", () => {
    expect(redactSecret(DETAIL, "e")).toBe("the source answered 401: the token [redacted] is not valid here ([redacted])");
    expect(redactSecret("the source answered 401", "e")).toBe("the source answered 401");
  });

  test.each(["a", "Zq", "abc", "x7k2", "s3cr3", "tok-en", "abcdefg"])("a short token never garbles ordinary words: %s, at every length under 8", (token) => {
    const words = `${token}x x${token} ${token}${token}`;
    expect(redactSecret(`pre ${token} mid ${words} end:${token}`, token)).toBe(`pre [redacted] mid ${words} end:[redacted]`);
  });

  test("a short token never garbles ordinary words: its base64 and URL-encoded forms hide where they stand alone", () => {
    const token = "a+b/c";
    const base64 = Buffer.from(token).toString("base64");
    expect(redactSecret(`q=${encodeURIComponent(token)}&r=${encodeURIComponent(token).toLowerCase()}`, token)).toBe("q=[redacted]&r=[redacted]");
    expect(redactSecret(`auth ${base64} and ${Buffer.from(token).toString("base64url")}`, token)).toBe("auth [redacted] and [redacted]");
    expect(redactSecret(`x${base64}`, token)).toBe(`x${base64}`);
  });

  test("a short token never garbles ordinary words: an edge that is not a letter or digit needs no boundary", () => {
    expect(redactSecret("value-x9 x-x9", "-x9")).toBe("value[redacted] x[redacted]");
    expect(redactSecret("token déjàvu or 9é", "é")).toBe("token déjàvu or 9é");
  });

  test("a short token never garbles ordinary words: the 8-character rule for longer tokens is unchanged", () => {
    expect(redactSecret("x abcdefgh y abcdefg", "abcdefgh")).toBe("x [redacted] y abcdefg");
    expect(redactSecret("wordabcdefghword", "abcdefgh")).toBe("word[redacted]word");
  });
});
