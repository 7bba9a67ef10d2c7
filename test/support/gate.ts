/** A promise and the function that resolves it: what a test waits on instead of a sleep. */
export function gate<T = void>() {
  let open: (value: T) => void = () => undefined;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}
