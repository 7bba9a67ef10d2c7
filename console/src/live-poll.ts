/** How often a screen that watches a running sync or audit asks again. */
export const POLL_MS = 500;

/** A watch on something that runs (a sync run, an audit): stopped when its screen is left. */
export interface LivePoll {
  readonly stopped: () => boolean;
  stop(): void;
}

/**
 * Reads `read` at once, then every POLL_MS while what it answers is running, handing each answer to `show` and
 * each failure's message to `showError`, until stopped; a screen left mid-request shows nothing of its answer.
 */
export function pollWhileRunning<T extends { readonly status: string }>(
  read: () => Promise<T>,
  show: (value: T) => void | Promise<void>,
  showError: (message: string) => void,
): LivePoll {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = async () => {
    try {
      const value = await read();
      if (stopped) return;
      await show(value);
      if (value.status === "running") timer = setTimeout(() => void poll(), POLL_MS);
    } catch (error) {
      if (!stopped) showError((error as Error).message);
    }
  };
  void poll();
  return {
    stopped: () => stopped,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
