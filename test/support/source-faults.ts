import type { SourceReply, SourceRequest } from "./source-server";

/** A source's scripted misbehaviour: a reply for a request, or undefined to let the source answer. */
export type SourceFaultScript = (request: SourceRequest) => SourceReply | undefined;

/** Answers `reply` to the first `times` requests to `path` (Infinity: to every one), then lets the source answer. */
export function failFirst(path: string, times: number, reply: SourceReply): SourceFaultScript {
  let seen = 0;
  return (request) => {
    if (request.path !== path) return undefined;
    seen += 1;
    return seen <= times ? reply : undefined;
  };
}

/** Answers the replies in turn to the first requests to `path`, then lets the source answer. */
export function failInTurn(path: string, replies: readonly SourceReply[]): SourceFaultScript {
  let seen = 0;
  return (request) => {
    if (request.path !== path) return undefined;
    seen += 1;
    return replies[seen - 1];
  };
}
