import type { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import type { Logger } from "../../domain/core/ports/logger";

/**
 * The Logger port in AWS: Powertools' JSON lines, which carry the request id,
 * cold start and function keys (injectLambdaContext) and the run's ids
 * (lambda-observability.ts), at the level set by Lambda's log controls.
 * Closures, not methods: callers pass `deps.logger.warn` around unbound.
 */
export function powertoolsLogger(logger: PowertoolsLogger): Logger {
  return {
    info: (message, fields = {}) => logger.info(message, fields),
    warn: (message, fields = {}) => logger.warn(message, fields),
    error: (message, fields = {}) => logger.error(message, fields),
  };
}
