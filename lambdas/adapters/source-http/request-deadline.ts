/**
 * Calls `onExpiry` once, `ms` from now, unless the returned stop function runs
 * first. The seam through which tests fire a deadline without waiting for it.
 */
export type DeadlineTimer = (ms: number, onExpiry: () => void) => () => void;

/** setTimeout: Node's timer list holds the callback, and all it reaches, strongly until it fires or is stopped. */
export const systemDeadlineTimer: DeadlineTimer = (ms, onExpiry) => {
  const timer = setTimeout(onExpiry, ms);
  return () => clearTimeout(timer);
};

/**
 * Runs `work` under one deadline for all of it. On expiry the result rejects
 * with `timedOut()` at once, whether or not `work` notices, and the signal
 * given to `work` aborts so that what listens on it (the fetch, the body
 * reader) lets go of the connection.
 *
 * Why not just pass an AbortSignal to fetch: fetch copies it into a Request,
 * which follows the caller's signal only through a weak reference (undici
 * issues 4068 and 3644); after a garbage collection the abort no longer
 * reaches a body being read, and a slow body runs past any timeout. Here the
 * timer holds the controller and the rejection strongly.
 */
export async function withinDeadline<T>(
  timer: DeadlineTimer,
  ms: number,
  timedOut: () => Error,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let expire: (error: Error) => void = () => undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    expire = reject;
  });
  const stop = timer(ms, () => {
    const error = timedOut();
    // Reject first, so the deadline wins the race over whatever the abort makes `work` throw.
    expire(error);
    controller.abort(error);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    stop();
  }
}
