import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full, synchronous garbage collection. Vitest's workers run without
 * --expose-gc, so the flag is set at run time and V8's `gc` taken from a fresh
 * context (which sees the flag); `gcRan` in the tests proves it really collects.
 */
export function forceGc(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") {
    exposed();
    return;
  }
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
