/**
 * An AWS SDK client of a service with no local engine (KMS, EventBridge, Step Functions, Lambda): its `send`
 * records each command the adapter sends and answers it with `answer`, so a test checks the adapter's exact
 * requests. The client is made in eu-west-1 with dummy credentials and never reaches the network.
 */
export function recordingClient<C extends { send: unknown }>(
  Client: new (config: { region: string; credentials: { accessKeyId: string; secretAccessKey: string } }) => C,
  answer: (command: unknown) => unknown,
): { readonly client: C; readonly sent: unknown[] } {
  const sent: unknown[] = [];
  const client = new Client({ region: "eu-west-1", credentials: { accessKeyId: "x", secretAccessKey: "y" } });
  client.send = (async (command: unknown) => {
    sent.push(command);
    return answer(command);
  }) as C["send"];
  return { client, sent };
}
