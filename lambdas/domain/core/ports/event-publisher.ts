import type { ServiceEvent } from "../service-events";

/**
 * Where the service's events go (core/service-events.ts): EventBridge's
 * default bus in AWS, the log locally. The audit publishes "Audit Finished"
 * through the same port.
 */
export interface EventPublisher {
  publish(event: ServiceEvent): Promise<void>;
}
