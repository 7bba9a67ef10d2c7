/**
 * `Promise.withResolvers` (ES2024, Node >= 22) for Node 20: aws-local-stepfunctions
 * calls it in every Task state. Import this module for its side effect BEFORE
 * the engine is imported. It does nothing when the runtime already has it.
 */

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const promiseConstructor = Promise as PromiseConstructor & { withResolvers?: unknown };

if (typeof promiseConstructor.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function withResolvers<T>(this: unknown): Resolvers<T> {
      // Like the built-in, honour a subclass receiver (`MyPromise.withResolvers()`).
      const Ctor = (typeof this === "function" ? this : Promise) as PromiseConstructor;
      let resolve!: Resolvers<T>["resolve"];
      let reject!: Resolvers<T>["reject"];
      const promise = new Ctor<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
