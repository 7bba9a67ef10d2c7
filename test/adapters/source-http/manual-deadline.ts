import type { DeadlineTimer } from "../../../lambdas/adapters/source-http/request-deadline";

export interface StartedDeadline {
  readonly ms: number;
  /** Fires the deadline now, as the timer would once `ms` had passed. */
  readonly fire: () => void;
  readonly stopped: boolean;
}

/** A DeadlineTimer the test fires itself: no test waits for a real timeout. */
export function manualDeadline() {
  const started: StartedDeadline[] = [];
  const timer: DeadlineTimer = (ms, onExpiry) => {
    const entry = { ms, fire: onExpiry, stopped: false };
    started.push(entry);
    return () => {
      entry.stopped = true;
    };
  };
  return { timer, started };
}
