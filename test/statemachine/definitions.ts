import { readFileSync } from "node:fs";
import { DISPATCH_DEFINITION_PATH } from "../../statemachine/dispatch-definition";
import { SYNC_DEFINITION_PATH, SYNC_PAGES_DEFINITION_PATH } from "../../statemachine/sync-definition";

export interface Retrier {
  readonly ErrorEquals: string[];
  readonly IntervalSeconds?: number;
  readonly BackoffRate?: number;
  readonly MaxAttempts?: number;
  readonly MaxDelaySeconds?: number;
  readonly JitterStrategy?: string;
}
export interface Catcher {
  readonly ErrorEquals: string[];
  readonly Next: string;
  readonly ResultPath?: string | null;
}
export interface AslState {
  readonly Type: string;
  readonly Resource?: string;
  readonly Retry?: Retrier[];
  readonly Catch?: Catcher[];
  readonly Parameters?: Record<string, unknown>;
  readonly ItemProcessor?: AslMachine;
  readonly Iterator?: AslMachine;
  readonly [key: string]: unknown;
}
export interface AslMachine {
  readonly StartAt: string;
  readonly States: Record<string, AslState>;
  readonly [key: string]: unknown;
}

/** The three ASL files, by file name: each is deployed by CDK and run by the local engine as written. */
export const ASL_FILES = {
  "sync.asl.json": SYNC_DEFINITION_PATH,
  "sync-pages.asl.json": SYNC_PAGES_DEFINITION_PATH,
  "dispatch.asl.json": DISPATCH_DEFINITION_PATH,
} as const;
export type AslFile = keyof typeof ASL_FILES;

export const aslText = (file: AslFile): string => readFileSync(ASL_FILES[file], "utf8");
export const aslDefinition = (file: AslFile): AslMachine => JSON.parse(aslText(file)) as AslMachine;

export interface WalkedState {
  /** Map states' names down to this one, then its own: "RunConnections/HandOvers/RunSync". */
  readonly path: string;
  readonly name: string;
  readonly state: AslState;
}

/** Every state of a definition, those of Map (ItemProcessor, Iterator) and Parallel (Branches) states included. */
export function allStates(machine: AslMachine, prefix = ""): WalkedState[] {
  return Object.entries(machine.States).flatMap(([name, state]) => {
    const path = `${prefix}${name}`;
    const nested = [state.ItemProcessor, state.Iterator, ...((state["Branches"] as AslMachine[] | undefined) ?? [])].filter(
      (inner): inner is AslMachine => inner !== undefined,
    );
    return [{ path, name, state }, ...nested.flatMap((inner) => allStates(inner, `${path}/`))];
  });
}

/** Lambda Task states: their Resource is a `${...FunctionArn}` placeholder (DefinitionSubstitutions fill a live alias ARN). */
export const isLambdaTask = (state: AslState): boolean => state.Type === "Task" && /^\$\{[A-Za-z]+FunctionArn\}$/.test(state.Resource ?? "");

/** Task states of Step Functions' own integrations: startExecution (optimized, with or without .sync) and aws-sdk:sfn. */
export const isStepFunctionsTask = (state: AslState): boolean =>
  state.Type === "Task" && /^arn:aws:states:::(states:startExecution|aws-sdk:sfn:)/.test(state.Resource ?? "");
