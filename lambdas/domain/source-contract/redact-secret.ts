/**
 * Shortest run of a secret's characters that is redacted. 8 keeps every
 * fragment long enough to matter (40 bits or more of a random token) while
 * leaving ordinary text alone: a 7-character run of a token is often a word,
 * a number or a date fragment ("invalid", "2024-03"), and redacting those would
 * make details unreadable.
 */
export const SECRET_RUN_MIN_CHARS = 8;

export const REDACTED = "[redacted]";

/**
 * Replaces with `[redacted]` every run of 8 or more consecutive characters of
 * the secret, or of its base64 (standard or url-safe, at any byte alignment)
 * or URL-encoded forms, found in `text`. Overlapping and adjacent runs merge
 * into one `[redacted]`. A secret shorter than 8 characters cannot be told
 * apart from letters of ordinary words, so it is hidden, in any of its whole
 * forms, only where it stands on its own: never inside a longer run of
 * letters and digits (`e` hides `token e`, not the e of `the`).
 */
export function redactSecret(text: string, secret: string): string {
  return createSecretRedactor(secret)(text);
}

/**
 * The same rule with the secret's forms prepared once: for a token of a few KB
 * this is a set of some ten thousand 8-character windows, after which a
 * 300-character detail costs about 300 set look-ups.
 */
export function createSecretRedactor(secret: string): (text: string) => string {
  if (secret === "") return (text) => text;
  if (secret.length < SECRET_RUN_MIN_CHARS) return standaloneRedactor(wholeForms(secret));
  const width = SECRET_RUN_MIN_CHARS;
  const windows = new Set<string>();
  for (const form of secretForms(secret)) {
    for (let start = 0; start + width <= form.length; start += 1) windows.add(form.slice(start, start + width));
  }
  return (text) => {
    const hidden = new Uint8Array(text.length);
    let found = false;
    for (let start = 0; start + width <= text.length; start += 1) {
      if (!windows.has(text.slice(start, start + width))) continue;
      // Every character inside a window of the text that is also a window of a form is secret.
      hidden.fill(1, start, start + width);
      found = true;
    }
    return found ? withRedactions(text, hidden) : text;
  };
}

/** Letters and digits of any script: what an ordinary word, or a longer token, is made of. */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * A short secret's forms, hidden only where each stands on its own: a side
 * of a match that ends in a letter or digit must meet the text's edge or a
 * character that is neither (`token=e;` hides it, `the` keeps its e).
 */
function standaloneRedactor(forms: readonly string[]): (text: string) => string {
  return (text) => {
    const hidden = new Uint8Array(text.length);
    let found = false;
    for (const form of forms) {
      const opensWord = WORD_CHAR.test(form.slice(0, 1));
      const closesWord = WORD_CHAR.test(form.slice(-1));
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
        const end = at + form.length;
        if (opensWord && at > 0 && WORD_CHAR.test(text.slice(at - 1, at))) continue;
        if (closesWord && end < text.length && WORD_CHAR.test(text.slice(end, end + 1))) continue;
        hidden.fill(1, at, end);
        found = true;
      }
    }
    return found ? withRedactions(text, hidden) : text;
  };
}

/** The text with each run of hidden characters replaced by one `[redacted]`. */
function withRedactions(text: string, hidden: Uint8Array): string {
  let out = "";
  for (let index = 0; index < text.length; index += 1) {
    if (hidden[index] === 0) out += text[index];
    else if (index === 0 || hidden[index - 1] === 0) out += REDACTED;
  }
  return out;
}

/** The whole forms of a secret as a source might echo it: as is, its complete base64 (both alphabets), percent-encoded. */
function wholeForms(secret: string): string[] {
  const base64 = Buffer.from(secret, "utf8").toString("base64");
  const percent = encodeURIComponent(secret);
  const forms = [secret, base64, toBase64Url(base64), percent, percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())];
  return [...new Set(forms)].filter((form) => form !== "");
}

/** The secret as a source might echo it: as is, base64 (both alphabets, every alignment), percent-encoded. */
function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms = new Set<string>([secret]);
  for (const shift of [0, 1, 2]) {
    // Inside a longer base64 text the secret's bytes can start at any offset modulo 3; each offset encodes
    // them differently. Keep only the characters made of the secret's bits alone.
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    const pure = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    forms.add(pure);
    forms.add(toBase64Url(pure));
  }
  // The complete encodings too, so the last partial character and the padding go with the rest.
  const base64 = bytes.toString("base64");
  forms.add(base64);
  forms.add(toBase64Url(base64));
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  return [...forms].filter((form) => form !== "");
}

function toBase64Url(base64: string): string {
  return base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
