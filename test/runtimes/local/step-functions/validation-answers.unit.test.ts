import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { VALIDATOR_VERSION, answerKey, diskValidationAnswers, type ValidationAnswer } from "../../../../lambdas/runtimes/local/step-functions/validation-answers";
import { validateDefinition } from "../../../../lambdas/runtimes/local/step-functions/validate-definition";

const folder = mkdtempSync(join(tmpdir(), "asl-answers-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A definition no other test validates, so no answer of this process stands in for the validator. */
const uniqueDefinition = (name: string) => ({ StartAt: name, States: { [name]: { Type: "Succeed" } } });
const DEFAULTS = [true, true] as const;

describe("asl-validator's answers on disk", () => {
  test("an answer is kept on disk by content: another store on the same folder (the next process) finds it", () => {
    const dir = join(folder, "kept");
    const key = answerKey(VALIDATOR_VERSION, DEFAULTS, uniqueDefinition("Kept"));
    diskValidationAnswers(dir).set(key, { valid: false, errors: ["E: kept"] });
    expect(diskValidationAnswers(dir).get(key)).toEqual({ valid: false, errors: ["E: kept"] });
    // Written whole through a renamed temporary file: nothing half-written is left beside it.
    expect(readdirSync(dir)).toEqual([`${key}.json`]);
  });

  test("a changed definition, option or validator version is another key, so it is validated anew", () => {
    const definition = uniqueDefinition("Changed");
    const key = answerKey(VALIDATOR_VERSION, DEFAULTS, definition);
    expect(answerKey(VALIDATOR_VERSION, DEFAULTS, uniqueDefinition("Changes"))).not.toBe(key);
    expect(answerKey(VALIDATOR_VERSION, [false, true], definition)).not.toBe(key);
    expect(answerKey(VALIDATOR_VERSION, [true, false], definition)).not.toBe(key);
    expect(answerKey(`${VALIDATOR_VERSION}-next`, DEFAULTS, definition)).not.toBe(key);
    expect(answerKey(VALIDATOR_VERSION, DEFAULTS, structuredClone(definition))).toBe(key);
  });

  test("a corrupt or foreign answer file is no answer, and an unwritable folder costs only the validation", () => {
    const dir = join(folder, "corrupt");
    const answers = diskValidationAnswers(dir);
    const key = answerKey(VALIDATOR_VERSION, DEFAULTS, uniqueDefinition("Corrupt"));
    answers.set(key, { valid: true, errors: [] });
    writeFileSync(join(dir, `${key}.json`), '{"valid": tr');
    expect(answers.get(key)).toBeUndefined();
    writeFileSync(join(dir, `${key}.json`), JSON.stringify({ valid: "yes", errors: [] }));
    expect(answers.get(key)).toBeUndefined();

    // A folder that cannot be made (a file holds its name): the answer is validated, returned, and not kept.
    const unwritable = join(folder, "a-file");
    writeFileSync(unwritable, "");
    const nowhere = diskValidationAnswers(unwritable);
    const definition = uniqueDefinition("Unwritable");
    expect(validateDefinition(definition, { answers: nowhere })).toEqual({ valid: true, errors: [] });
    expect(nowhere.get(answerKey(VALIDATOR_VERSION, DEFAULTS, definition))).toBeUndefined();
  });

  test("validateDefinition answers from the store it is given without running the validator, and keeps what it validated there", () => {
    const answers = diskValidationAnswers(join(folder, "given"));
    const planted = uniqueDefinition("Planted");
    // An answer asl-validator would never give for this definition: only the store can have said it.
    const plantedAnswer: ValidationAnswer = { valid: false, errors: ["PLANTED: from the store"] };
    answers.set(answerKey(VALIDATOR_VERSION, DEFAULTS, planted), plantedAnswer);
    expect(validateDefinition(planted, { answers })).toEqual(plantedAnswer);

    // Invalid, and unique to this test: local-step-functions.test.ts validates the same shape under other names, and a
    // worker that ran it first would answer from its memory without writing to this store.
    const fresh = { StartAt: "Fresh", States: { Fresh: { Type: "Pass", Next: "NowhereFresh" } } };
    const validated = validateDefinition(fresh, { answers });
    expect(validated.valid).toBe(false);
    expect(answers.get(answerKey(VALIDATOR_VERSION, DEFAULTS, fresh))).toEqual(validated);
  });
});
