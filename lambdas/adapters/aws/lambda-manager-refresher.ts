import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import type { ManagerRefresher } from "../../domain/core/ports/manager-refresher";

/**
 * ManagerRefresher on Lambda: an asynchronous invoke (InvocationType Event) of
 * the ManagerRefresh function, so a run's end does not wait for a read of every
 * record, and the refresh has that function's own time and memory. The event
 * is the job: a connection id and whether to force it.
 */
export class LambdaManagerRefresher implements ManagerRefresher {
  constructor(private readonly options: { readonly client: LambdaClient; readonly functionName: string }) {}

  async request(job: Parameters<ManagerRefresher["request"]>[0]): Promise<void> {
    await this.options.client.send(
      new InvokeCommand({ FunctionName: this.options.functionName, InvocationType: "Event", Payload: new TextEncoder().encode(JSON.stringify(job)) }),
    );
  }
}
