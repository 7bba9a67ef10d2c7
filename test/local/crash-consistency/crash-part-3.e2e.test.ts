import { describeCrashCases } from "./crash-cases";

// Kills after the page task returned, and during a Wait (docs/crash-consistency.md).
describeCrashCases(3);
