/**
 * Walks an ASL definition the way Step Functions bills it: every state
 * entered is one transition (Choice, Pass, Wait, Succeed and Fail included).
 * A small interpreter of the subset the sync definitions use (JSONPath `$.a.b`
 * and `$.a[0]` paths; Choice rules StringEquals, BooleanEquals, IsNull, IsPresent,
 * NumericGreaterThan(Path);
 * InputPath, Result, ResultPath (null included), OutputPath), with every
 * Task's output given by a script, so the counts come from the definitions
 * themselves and change when they do. A Map state is handed to the script as
 * a Task is (the script walks its ItemProcessor per item, as a Distributed
 * Map's child executions are billed apart). No retries, no waits: the happy
 * path the cost is quoted for.
 */

export interface AslState {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: ReadonlyArray<Record<string, unknown>>;
  readonly InputPath?: string;
  readonly OutputPath?: string;
  readonly ResultPath?: string | null;
  readonly Result?: unknown;
  readonly Parameters?: unknown;
}
export interface AslDefinition {
  readonly StartAt: string;
  readonly States: Readonly<Record<string, AslState>>;
}

/** A Task's result for its (effective) input; the walk applies ResultPath and OutputPath as Step Functions does. */
export type TaskScript = (stateName: string, input: unknown) => unknown;

export interface Walk {
  /** State names in the order they were entered. */
  readonly entered: readonly string[];
  readonly output: unknown;
  /** The end state's type (Succeed, Fail, or the last state's when it ends with End: true). */
  readonly endedIn: string;
}

const MAX_STEPS = 1_000_000;

export function walk(definition: AslDefinition, input: unknown, script: TaskScript): Walk {
  const entered: string[] = [];
  let name = definition.StartAt;
  let data = input;
  for (let step = 0; step < MAX_STEPS; step += 1) {
    const state = definition.States[name];
    if (state === undefined) throw new Error(`no state ${name}`);
    entered.push(name);
    switch (state.Type) {
      case "Succeed":
      case "Fail":
        return { entered, output: data, endedIn: state.Type };
      case "Choice": {
        const rule = state.Choices?.find((choice) => matches(choice, data));
        const next = (rule?.["Next"] as string | undefined) ?? state.Default;
        if (next === undefined) throw new Error(`${name}: no choice matched and no Default`);
        name = next;
        continue;
      }
      case "Task":
      case "Map": {
        const effective = state.InputPath === undefined ? data : read(data, state.InputPath);
        const result = script(name, effective);
        data = select(place(data, state.ResultPath, result), state.OutputPath);
        break;
      }
      case "Pass": {
        const effective = state.InputPath === undefined ? data : read(data, state.InputPath);
        const result = "Result" in state ? state.Result : effective;
        data = select(place(effective, state.ResultPath, result), state.OutputPath);
        break;
      }
      case "Wait":
        break;
      default:
        throw new Error(`${name}: the walk does not know state type ${state.Type}`);
    }
    if (state.End === true) return { entered, output: data, endedIn: state.Type };
    if (state.Next === undefined) throw new Error(`${name}: neither Next nor End`);
    name = state.Next;
  }
  throw new Error(`the walk did not end within ${MAX_STEPS} states`);
}

function matches(rule: Record<string, unknown>, data: unknown): boolean {
  const variable = rule["Variable"] as string;
  const value = read(data, variable);
  if ("IsPresent" in rule) return (value !== undefined) === rule["IsPresent"];
  if ("StringEquals" in rule) return value === rule["StringEquals"];
  if ("BooleanEquals" in rule) return value === rule["BooleanEquals"];
  if ("IsNull" in rule) return (value === null) === rule["IsNull"];
  if ("NumericGreaterThan" in rule) return typeof value === "number" && value > (rule["NumericGreaterThan"] as number);
  if ("NumericGreaterThanPath" in rule) {
    const other = read(data, rule["NumericGreaterThanPath"] as string);
    return typeof value === "number" && typeof other === "number" && value > other;
  }
  throw new Error(`the walk does not know the choice rule ${JSON.stringify(rule)}`);
}

function segments(path: string): string[] {
  if (path === "$") return [];
  if (!path.startsWith("$.")) throw new Error(`the walk reads only $.a.b paths, not ${path}`);
  // $.a[0].b reads as $.a.0.b: an array index is a key of the array.
  return path.slice(2).replace(/\[(\d+)\]/g, ".$1").split(".");
}

export function read(data: unknown, path: string): unknown {
  let at: unknown = data;
  for (const key of segments(path)) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function place(data: unknown, resultPath: string | null | undefined, result: unknown): unknown {
  if (resultPath === null) return data;
  if (resultPath === undefined || resultPath === "$") return result;
  const keys = segments(resultPath);
  const root = structuredClone((data ?? {}) as Record<string, unknown>);
  let at = root;
  for (const key of keys.slice(0, -1)) {
    at[key] = typeof at[key] === "object" && at[key] !== null ? at[key] : {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]!] = result;
  return root;
}

function select(data: unknown, outputPath: string | undefined): unknown {
  return outputPath === undefined ? data : read(data, outputPath);
}
