import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import type { PreflightJob, PreflightLauncher } from "../../domain/preflight/preflight-run";

export interface LambdaPreflightLauncherOptions {
  /** Injected: built once per process by the composition root. */
  readonly client: LambdaClient;
  /** The worker's alias ARN (or name). */
  readonly functionName: string;
}

/**
 * PreflightLauncher on Lambda: an asynchronous invoke (InvocationType Event)
 * of the preflight worker, so the API answers 202 at once and the check runs
 * for up to the worker's timeout. The event is the job: ids only, never the token.
 */
export class LambdaPreflightLauncher implements PreflightLauncher {
  constructor(private readonly options: LambdaPreflightLauncherOptions) {}

  async launch(job: PreflightJob): Promise<void> {
    await this.options.client.send(
      new InvokeCommand({
        FunctionName: this.options.functionName,
        InvocationType: "Event",
        Payload: new TextEncoder().encode(JSON.stringify(job)),
      }),
    );
  }
}
