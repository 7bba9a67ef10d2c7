import type { Fault } from "../core/metric-names";
import { FAULT_OF_ERROR_CLASS } from "./error-classes";
import type { CaughtError } from "./sync-state";

/**
 * Any other class is ours: States.Timeout (a Task that outlived its timeout:
 * the source has its own shorter deadline), States.* and Lambda.* errors, AWS
 * SDK errors that escaped the store adapters, and plain Error/TypeError (a bug).
 */
export function faultOfErrorClass(errorClass: string): Fault {
  return Object.hasOwn(FAULT_OF_ERROR_CLASS, errorClass) ? FAULT_OF_ERROR_CLASS[errorClass]! : "ours";
}

/** The class of a thrown error: its `name` (stable for our typed errors and the AWS SDK's), "Error" otherwise. */
export function errorClassOf(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

/** A failure as the metrics and logs carry it: the error class and whose fault it is. */
export interface ClassifiedFailure {
  readonly error_class: string;
  readonly fault: Fault;
}

export function classifyThrown(error: unknown): ClassifiedFailure {
  const errorClass = errorClassOf(error);
  return { error_class: errorClass, fault: faultOfErrorClass(errorClass) };
}

/** The state machine puts the thrown error's name (or a States.* name) in `Error`. */
export function classifyCaught(caught: CaughtError): ClassifiedFailure {
  return { error_class: caught.Error, fault: faultOfErrorClass(caught.Error) };
}
