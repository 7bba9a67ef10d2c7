import { describeCrashCases } from "./crash-cases";

// One life, fetching ahead: three runs cut short between the early fetch of leads page 2 and its commit
// (its task started with it; page 1's task returned with it; page 1 mid-write while it is out).
describeCrashCases(4);
