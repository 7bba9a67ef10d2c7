import { setTimeout as timerSleep } from "node:timers/promises";
import type { Clock, Sleep } from "./ports/clock";

/** The wall clock: the default wherever a Clock is not injected. */
export const systemClock: Clock = { now: () => new Date() };

/** Real-time waiting: the default wherever a Sleep is not injected. */
export const realSleep: Sleep = (ms) => timerSleep(ms).then(() => undefined);
