import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import { Tracer } from "@aws-lambda-powertools/tracer";
import { captureLambdaHandler } from "@aws-lambda-powertools/tracer/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import { METRIC_SERVICE } from "../../domain/core/metric-names";
import type { Logger } from "../../domain/core/ports/logger";
import type { Metrics } from "../../domain/core/ports/metrics";
import type { RunReference } from "../../domain/core/run-reference";
import { EmfMetrics } from "./emf-metrics";
import { powertoolsLogger } from "./powertools-logger";


export interface LambdaObservability {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracer: Tracer;
  /** Wraps a Lambda handler: X-Ray subsegment, request id and cold start in every line, the run's ids when the event has them. */
  observed<E, R>(handler: (event: E, context: Context) => Promise<R>): middy.MiddyfiedHandler<E, R, Error, Context>;
}

/**
 * Powertools for one Lambda process (built once, at module scope, by the
 * composition root). Namespace, service and log level come from the
 * environment the stack sets; `options` override them in tests.
 */
export function createLambdaObservability(options: { readonly serviceName?: string; readonly namespace?: string } = {}): LambdaObservability {
  const serviceName = options.serviceName ?? process.env.POWERTOOLS_SERVICE_NAME ?? METRIC_SERVICE;
  const powertools = new PowertoolsLogger({ serviceName });
  const metrics = new PowertoolsMetrics({ serviceName, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) });
  const tracer = new Tracer({ serviceName });
  return {
    logger: powertoolsLogger(powertools),
    metrics: new EmfMetrics(metrics),
    tracer,
    observed: (handler) =>
      middy(handler)
        .use(captureLambdaHandler(tracer, { captureResponse: false }))
        // resetKeys: the run ids appended below belong to one invocation only.
        .use(injectLambdaContext(powertools, { resetKeys: true }))
        .use(runKeys(powertools, tracer)),
  };
}

/**
 * The run's ids as log keys and X-Ray annotations (searchable: annotation.run_id),
 * never as metric dimensions. Sync Task states carry `run`; BeginRun's event carries `input`.
 */
function runKeys(logger: PowertoolsLogger, tracer: Tracer): MiddlewareObj {
  return {
    before: (request) => {
      const ids = runIdsOf(request.event);
      if (ids === undefined) return;
      logger.appendKeys(ids);
      for (const [key, value] of Object.entries(ids)) tracer.putAnnotation(key, value);
    },
  };
}

export function runIdsOf(event: unknown): Pick<RunReference, "run_id" | "connection_id"> | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  const holder = (event as { run?: unknown; input?: unknown }).run ?? (event as { input?: unknown }).input;
  if (typeof holder !== "object" || holder === null) return undefined;
  const { run_id: runId, connection_id: connectionId } = holder as { run_id?: unknown; connection_id?: unknown };
  return typeof runId === "string" && typeof connectionId === "string" ? { run_id: runId, connection_id: connectionId } : undefined;
}
