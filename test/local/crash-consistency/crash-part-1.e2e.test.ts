import { describeCrashCases } from "./crash-cases";

// Kills before and after the fetch, and during ContinueAsNew (docs/crash-consistency.md).
describeCrashCases(1);
