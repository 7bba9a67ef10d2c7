const DECIMAL = /^\d+$/;

/**
 * Reads a response body of at most `maxBytes`; null when it is bigger. A larger
 * Content-Length is refused before reading; otherwise the (decompressed) bytes are
 * counted as they arrive and the download is cancelled once over the cap, so a
 * huge or endless body never sits in memory.
 *
 * When `signal` aborts, the read is cancelled through the reader itself (which
 * frees the connection) and its reason is thrown: the signal the response was
 * fetched with may no longer reach the body (see request-deadline.ts).
 */
export async function readBodyCapped(response: Response, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array | null> {
  if (signal?.aborted) {
    discardBody(response);
    throw signal.reason;
  }
  const declared = response.headers.get("content-length")?.trim();
  if (declared !== undefined && DECIMAL.test(declared) && Number(declared) > maxBytes) {
    discardBody(response);
    return null;
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const cancel = (): void => {
    // Not awaited: cancelling only has to stop the download, not report back.
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      // A cancelled read ends as if the body were complete: it is not.
      signal?.throwIfAborted();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        cancel();
        return null;
      }
      chunks.push(value);
    }
    return concat(chunks, total);
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] ?? new Uint8Array(0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Frees the connection of a response whose body is not wanted. */
export function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}
