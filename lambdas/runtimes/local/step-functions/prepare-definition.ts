const PLACEHOLDER = /\$\{([^}]*)\}/g;

/**
 * A deep copy with DefinitionSubstitutions applied to every string (as CDK
 * does in AWS). A Task `Resource` that still holds a `${...}` placeholder gets
 * a dummy Lambda ARN named after it (`${PageTaskArn}` ->
 * `arn:aws:lambda:us-east-1:000000000000:function:PageTaskArn`): it passes the
 * ARN check and is never called, every Task state running a local handler.
 */
export function prepareDefinition(definition: object, substitutions: Readonly<Record<string, string>>): object {
  const substitute = (value: unknown): unknown => {
    if (typeof value === "string") {
      return value.replace(PLACEHOLDER, (placeholder, key: string) =>
        Object.hasOwn(substitutions, key) ? substitutions[key]! : placeholder,
      );
    }
    if (Array.isArray(value)) return value.map(substitute);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item)]));
    }
    return value;
  };
  const prepared = substitute(definition) as object;
  for (const [, state] of namedStates(prepared)) {
    if (state["Type"] === "Task" && typeof state["Resource"] === "string" && state["Resource"].includes("${")) {
      const name = [...state["Resource"].matchAll(PLACEHOLDER)].map((match) => match[1]).join("-");
      const functionName = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "LocalTask";
      state["Resource"] = `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`;
    }
  }
  return prepared;
}

/** Every Task state by name (nested Map and Parallel ones included) with its Resource. */
export function taskStates(definition: object): ReadonlyMap<string, string> {
  const tasks = new Map<string, string>();
  for (const [name, state] of namedStates(definition)) if (state["Type"] === "Task") tasks.set(name, String(state["Resource"]));
  return tasks;
}

type StateObject = Record<string, unknown>;

/** Every state with its name, nested Map (Iterator/ItemProcessor) and Parallel (Branches) states included. */
function* namedStates(machine: unknown): Generator<[string, StateObject], void, undefined> {
  if (typeof machine !== "object" || machine === null) return;
  const states = (machine as StateObject)["States"];
  if (typeof states !== "object" || states === null) return;
  for (const [name, state] of Object.entries(states as Record<string, unknown>)) {
    if (typeof state !== "object" || state === null) continue;
    const object = state as StateObject;
    yield [name, object];
    yield* namedStates(object["Iterator"]);
    yield* namedStates(object["ItemProcessor"]);
    if (Array.isArray(object["Branches"])) for (const branch of object["Branches"]) yield* namedStates(branch);
  }
}
