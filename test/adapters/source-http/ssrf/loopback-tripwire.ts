import type { LookupAddress } from "node:dns";
import { lookup as systemLookup } from "node:dns";
import net, { isIP, type LookupFunction } from "node:net";
import tls from "node:tls";

/**
 * A test-only safety net under the code being tested: while installed, a
 * socket opened with `net.connect`/`tls.connect` (what undici uses) can reach
 * loopback only. A literal non-loopback host, or a lookup answer with any
 * non-loopback address, fails the connect before any packet is sent and is
 * recorded in `trips`. So even a broken guard cannot send a test request
 * anywhere but 127.0.0.1.
 */
export const trips: string[] = [];

const TRIPWIRE_HOST = "tripwire.invalid";

export function isLoopbackAddress(address: string): boolean {
  return (isIP(address) === 4 && address.startsWith("127.")) || address === "::1";
}

/** The connect options made safe: unchanged for loopback, pointed at an erroring lookup otherwise. */
export function tripwireOptions<T extends { host?: string | undefined; lookup?: LookupFunction | undefined }>(
  options: T,
): T {
  const host = options.host ?? "localhost";
  const trip = (target: string): T => {
    trips.push(target);
    const refuse: LookupFunction = (_hostname, _options, callback) =>
      process.nextTick(() => callback(Object.assign(new Error(`tripwire: ${target}`), { code: "ETRIPWIRE" }), ""));
    return { ...options, host: TRIPWIRE_HOST, lookup: refuse };
  };
  if (isIP(host) !== 0) return isLoopbackAddress(host) ? options : trip(host);
  const inner: LookupFunction = options.lookup ?? (systemLookup as unknown as LookupFunction);
  const checked: LookupFunction = (hostname, lookupOptions, callback) => {
    inner(hostname, lookupOptions, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry: LookupAddress) => entry.address) : [address];
      const outside = addresses.find((entry) => !isLoopbackAddress(entry));
      if (outside === undefined) return callback(null, address, family);
      trips.push(`${hostname} -> ${outside}`);
      return callback(Object.assign(new Error(`tripwire: ${hostname} -> ${outside}`), { code: "ETRIPWIRE" }), "");
    });
  };
  return { ...options, lookup: checked };
}

/** Installs the tripwire; returns the function that removes it. */
type AnyConnect = (...args: unknown[]) => unknown;

/** Installs the tripwire; returns the function that removes it. */
export function installLoopbackTripwire(): () => void {
  const originalNet = net.connect;
  const originalTls = tls.connect;
  const wrap =
    (original: AnyConnect): AnyConnect =>
    (...args) => {
      const [first] = args;
      if (typeof first === "object" && first !== null) return original(tripwireOptions(first as object), ...args.slice(1));
      // The (port, host) form: only a literal host can be checked here, and undici never uses this form.
      const host = typeof args[1] === "string" ? args[1] : "localhost";
      if (isIP(host) !== 0 && !isLoopbackAddress(host)) {
        trips.push(host);
        throw new Error(`tripwire: ${host}`);
      }
      return original(...args);
    };
  net.connect = wrap(originalNet as AnyConnect) as typeof net.connect;
  tls.connect = wrap(originalTls as AnyConnect) as typeof tls.connect;
  return () => {
    net.connect = originalNet;
    tls.connect = originalTls;
  };
}
