import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as v from "valibot";

/**
 * asl-validator's answers kept on disk by content, for the next process. Every `npm start`, every test worker and
 * every runtime a test starts validates the same three definitions, and asl-validator compiles its JSON schema
 * on every call: about 1.1 s of CPU for the two sync definitions in a fresh process (measured in the commit that
 * added this). An answer is keyed by the validator's version, the options and the definition's text, so a changed
 * definition or validator is validated anew. A missing, corrupt or unwritable answer costs only the validation.
 */

export const ValidationAnswerSchema = v.object({ valid: v.boolean(), errors: v.array(v.string()) });
export type ValidationAnswer = v.InferOutput<typeof ValidationAnswerSchema>;

export interface ValidationAnswers {
  get(key: string): ValidationAnswer | undefined;
  set(key: string, answer: ValidationAnswer): void;
}

const VALIDATOR_PACKAGE = createRequire(import.meta.url).resolve("asl-validator/package.json");
/** The installed asl-validator's version: part of every key, so an upgrade validates everything anew. */
export const VALIDATOR_VERSION = (JSON.parse(readFileSync(VALIDATOR_PACKAGE, "utf8")) as { version: string }).version;

/** node_modules/.cache beside the installed validator: where build tools keep what they can compute again. */
export const DEFAULT_ANSWERS_DIR = join(dirname(dirname(VALIDATOR_PACKAGE)), ".cache", "asl-validation");

/** The key of one validation: a hash of the validator's version, the options and the definition's text. */
export function answerKey(validatorVersion: string, options: readonly [checkArn: boolean, checkPaths: boolean], definition: object): string {
  return createHash("sha256").update(JSON.stringify([validatorVersion, options, definition])).digest("hex");
}

/** One JSON file per answer in `dir`, written whole (a temporary file renamed) so a reader never sees half of one. */
export function diskValidationAnswers(dir: string = DEFAULT_ANSWERS_DIR): ValidationAnswers {
  const fileOf = (key: string) => join(dir, `${key}.json`);
  return {
    get(key) {
      try {
        const parsed = v.safeParse(ValidationAnswerSchema, JSON.parse(readFileSync(fileOf(key), "utf8")));
        return parsed.success ? parsed.output : undefined;
      } catch {
        return undefined;
      }
    },
    set(key, answer) {
      const file = fileOf(key);
      const partial = `${file}.${randomUUID()}.tmp`;
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(partial, JSON.stringify(answer));
        renameSync(partial, file);
      } catch {
        // A read-only install validates every time; nothing else depends on the file.
      }
    },
  };
}
