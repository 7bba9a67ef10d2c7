import { expect } from "vitest";

/** The error `promise` rejects with, checked to be a `type`; a promise that resolves fails the test. */
export async function rejectedWith<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if (!("rejected" in outcome)) throw new Error(`expected a ${type.name}, but the promise resolved`);
  expect(outcome.rejected).toBeInstanceOf(type);
  return outcome.rejected as E;
}
