import type { BenchContext, MeasurementResult } from "./bench-env";
import { measureAnalytics } from "./analytics";
import { measureAudit } from "./audit";
import { measureLatency } from "./latency";
import { measureLimiter } from "./limiter";
import type { MeasurementName } from "./options";
import { measureOrchestration } from "./orchestration";
import { measurePageOverhead } from "./page-overhead";
import { measureProduct } from "./product";
import { measureRateBound } from "./rate-bound";
import { measureScale } from "./scale";
import { measureValidation } from "./validation";

/** Every measurement of `npm run bench`, by its --only name: the bench runs these, and its test runs each in its smoke size. */
export const MEASURE: Readonly<Record<MeasurementName, (context: BenchContext) => Promise<MeasurementResult>>> = {
  rate: measureRateBound,
  overhead: measurePageOverhead,
  scale: measureScale,
  orchestration: measureOrchestration,
  product: measureProduct,
  latency: measureLatency,
  validation: measureValidation,
  limiter: measureLimiter,
  analytics: measureAnalytics,
  audit: measureAudit,
};
