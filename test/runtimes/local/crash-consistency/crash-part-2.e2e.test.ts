import { describeCrashCases } from "./crash-cases";

// A runtime killed during ContinueAsNew, three page tasks per execution (docs/crash-consistency.md).
describeCrashCases(2);
