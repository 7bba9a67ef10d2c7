import { createRequire } from "node:module";
import { VALIDATOR_VERSION, answerKey, diskValidationAnswers, type ValidationAnswers } from "./validation-answers";

/**
 * Amazon States Language validation with asl-validator 4 (JSON schema, JSONPath
 * syntax, transition targets, terminal states, duplicate names, ...). It does
 * not run the definition: intrinsic functions and Choice rules are only
 * checked for shape.
 */

export interface DefinitionValidation {
  readonly valid: boolean;
  /** `<ERROR_CODE>: <message>` per problem; empty when valid. */
  readonly errors: string[];
}

export interface ValidateDefinitionOptions {
  /** Check that Task `Resource` values are ARNs (default true). Unresolved `${...}` placeholders fail it. */
  readonly checkArn?: boolean;
  /** Check JSONPath syntax (default true). */
  readonly checkPaths?: boolean;
  /** Where answers outlive the process (default: node_modules/.cache, ./validation-answers.ts). */
  readonly answers?: ValidationAnswers;
}

interface AslValidatorResult {
  readonly isValid: boolean;
  readonly errorsText: (separator?: string) => string;
  readonly errors: readonly unknown[];
}
type AslValidator = (definition: unknown, options: { checkArn: boolean; checkPaths: boolean }) => AslValidatorResult;

// asl-validator 4 is CommonJS (`module.exports = function validator(...)`) and ships no type declarations.
const aslValidator = createRequire(import.meta.url)("asl-validator") as AslValidator;

/**
 * Answers by definition text: asl-validator compiles its JSON schema on every call, and a process builds engines
 * for the same few definitions again and again (each local service, each test harness). Kept in memory for this
 * process, and on disk for the next ones (./validation-answers.ts).
 */
const answers = new Map<string, DefinitionValidation>();
const ANSWERS_KEPT = 64;
const diskAnswers = diskValidationAnswers();

export function validateDefinition(definition: unknown, options: ValidateDefinitionOptions = {}): DefinitionValidation {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    return { valid: false, errors: ["The definition must be a JSON object"] };
  }
  const key = answerKey(VALIDATOR_VERSION, [options.checkArn ?? true, options.checkPaths ?? true], definition);
  const stored = options.answers ?? diskAnswers;
  const known = answers.get(key) ?? stored.get(key);
  const answer = known ?? validateOnce(definition, options);
  if (known === undefined) stored.set(key, answer);
  if (answers.size >= ANSWERS_KEPT) answers.clear();
  answers.set(key, answer);
  return { valid: answer.valid, errors: [...answer.errors] };
}

function validateOnce(definition: object, options: ValidateDefinitionOptions): DefinitionValidation {
  // The validator writes a default QueryLanguage into every state: give it a copy.
  const copy: unknown = structuredClone(definition);
  const result = aslValidator(copy, { checkArn: options.checkArn ?? true, checkPaths: options.checkPaths ?? true });
  if (result.isValid) return { valid: true, errors: [] };
  const separator = "\u0000";
  const errors = result.errorsText(separator).split(separator).filter((text) => text.length > 0);
  return { valid: false, errors };
}
