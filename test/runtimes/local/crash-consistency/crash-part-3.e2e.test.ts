import { describeCrashCases } from "./crash-cases";

// DynamoDB Local killed first between the page's transactions, the runtime on into the dead store (docs/crash-consistency.md).
describeCrashCases(3);
