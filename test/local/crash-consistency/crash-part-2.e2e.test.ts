import { describeCrashCases } from "./crash-cases";

// Kills between the page's transactions, with the runtime or DynamoDB Local killed (docs/crash-consistency.md).
describeCrashCases(2);
