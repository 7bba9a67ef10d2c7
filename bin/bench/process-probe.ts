import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest } from "node:http";
import { performance } from "node:perf_hooks";

/** One outgoing request seen by the probe: epoch ms (sub-millisecond), what it was. */
export interface ProbedCall {
  readonly label: string;
  readonly startedAt: number;
  endedAt: number;
}

/**
 * Every DynamoDB call and every source request this process makes, seen from
 * outside the code that makes them: Node's `http.client.*` diagnostics
 * channels carry the SDK's requests (labelled by their X-Amz-Target, e.g.
 * "GetItem"), undici's carry the source client's fetches. Needs no hook in
 * the service, so it times the runtime `npm start` builds exactly as it runs.
 */
export interface ProcessProbe {
  readonly dynamodb: readonly ProbedCall[];
  readonly fetches: readonly ProbedCall[];
  /** Forgets what was seen so far. */
  reset(): void;
  stop(): void;
}

export const epochNow = () => performance.timeOrigin + performance.now();

export function startProcessProbe(options: { readonly sourceOrigin: string }): ProcessProbe {
  const dynamodb: ProbedCall[] = [];
  const fetches: ProbedCall[] = [];
  const open = new WeakMap<object, ProbedCall>();

  const onHttpStart = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    const target = request.getHeader("x-amz-target");
    if (typeof target !== "string" || !target.startsWith("DynamoDB_")) return;
    const call = { label: target.slice(target.indexOf(".") + 1), startedAt: epochNow(), endedAt: Number.NaN };
    open.set(request, call);
    dynamodb.push(call);
  };
  const onHttpFinish = (message: unknown) => {
    const call = open.get((message as { request: object }).request);
    if (call !== undefined) call.endedAt = epochNow();
  };
  const onUndiciCreate = (message: unknown) => {
    const request = (message as { request: { origin?: unknown; path?: string } }).request;
    if (String(request.origin) !== options.sourceOrigin) return;
    const call = { label: (request.path ?? "").split("?")[0] ?? "", startedAt: epochNow(), endedAt: Number.NaN };
    open.set(request, call);
    fetches.push(call);
  };
  const onUndiciDone = (message: unknown) => {
    const call = open.get((message as { request: object }).request);
    if (call !== undefined) call.endedAt = epochNow();
  };
  const channels: [string, (message: unknown) => void][] = [
    ["http.client.request.start", onHttpStart],
    ["http.client.response.finish", onHttpFinish],
    ["undici:request:create", onUndiciCreate],
    ["undici:request:trailers", onUndiciDone],
  ];
  for (const [name, listener] of channels) subscribe(name, listener);
  return {
    dynamodb,
    fetches,
    reset() {
      dynamodb.length = 0;
      fetches.length = 0;
    },
    stop() {
      for (const [name, listener] of channels) unsubscribe(name, listener);
    },
  };
}
