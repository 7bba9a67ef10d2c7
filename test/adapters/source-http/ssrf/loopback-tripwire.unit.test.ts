import type { LookupFunction } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { isLoopbackAddress, tripwireOptions, trips } from "./loopback-tripwire";

// Pure checks of the tests' safety net: nothing here opens a socket.
afterEach(() => {
  trips.splice(0);
});

function lookupAnswering(addresses: readonly string[]): LookupFunction {
  return (_hostname, _options, callback) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
}

function runLookup(lookup: LookupFunction | undefined, hostname: string): Promise<unknown> {
  return new Promise((resolve) => {
    lookup?.(hostname, { all: true }, (error, address) => resolve(error ?? address));
  });
}

describe("the loopback tripwire (test safety net)", () => {
  test("knows loopback", () => {
    expect(["127.0.0.1", "127.9.9.9", "::1"].every(isLoopbackAddress)).toBe(true);
    expect(["10.0.0.1", "::ffff:127.0.0.1", "169.254.169.254", "localhost"].some(isLoopbackAddress)).toBe(false);
  });

  test("leaves a loopback literal alone", () => {
    const options = { host: "127.0.0.1", port: 80 };
    expect(tripwireOptions(options)).toBe(options);
    expect(trips).toEqual([]);
  });

  test("points a non-loopback literal at a lookup that fails", async () => {
    const options = tripwireOptions<{ host: string; port: number; lookup?: LookupFunction }>({ host: "10.0.0.1", port: 80 });
    expect(options.host).toBe("tripwire.invalid");
    expect(await runLookup(options.lookup, "tripwire.invalid")).toMatchObject({ code: "ETRIPWIRE" });
    expect(trips).toEqual(["10.0.0.1"]);
  });

  test("fails a lookup answer with any non-loopback address", async () => {
    const mixed = tripwireOptions({ host: "mixed.test", lookup: lookupAnswering(["127.0.0.1", "10.0.0.5"]) });
    expect(await runLookup(mixed.lookup, "mixed.test")).toMatchObject({ code: "ETRIPWIRE" });
    const local = tripwireOptions({ host: "local.test", lookup: lookupAnswering(["127.0.0.1"]) });
    expect(await runLookup(local.lookup, "local.test")).toEqual([{ address: "127.0.0.1", family: 4 }]);
    expect(trips).toEqual(["mixed.test -> 10.0.0.5"]);
  });
});
