import type { ConsumedCapacity } from "@aws-sdk/client-dynamodb";

/**
 * What DynamoDB (Local) itself reported as ConsumedCapacity, beside a
 * counter's own billing arithmetic (./write-units.ts, ./read-units.ts): DynamoDB
 * Local does not always agree with the documented rules, so the counters keep
 * both and the tests say which they trust.
 */
export class ReportedCapacity {
  /** CapacityUnits summed over every command that reported some. */
  total = 0;
  /** Commands seen, and those that carried a ConsumedCapacity. */
  commands = 0;
  withCapacity = 0;
  /** CapacityUnits per command, by the counter's sequence number. */
  readonly bySeq = new Map<number, number>();

  record(seq: number, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
    this.commands += 1;
    if (consumed === undefined) return;
    this.withCapacity += 1;
    const units = (Array.isArray(consumed) ? consumed : [consumed]).reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
    this.total += units;
    this.bySeq.set(seq, units);
  }

  reset(): void {
    this.total = 0;
    this.commands = 0;
    this.withCapacity = 0;
    this.bySeq.clear();
  }
}
