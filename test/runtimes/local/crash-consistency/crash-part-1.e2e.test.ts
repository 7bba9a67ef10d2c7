import { describeCrashCases } from "./crash-cases";

// One life, five runs cut short by one kill: before and after the fetch, between and after the page's
// transactions, and during a Wait after a 429 (docs/crash-consistency.md).
describeCrashCases(1);
