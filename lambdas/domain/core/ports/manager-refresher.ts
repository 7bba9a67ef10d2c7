/** Asks for a connection's aggregates to be refreshed; runs elsewhere (an async Lambda, or in process locally). */
export interface ManagerRefresher {
  /** `force`: recompute even when the stored records look unchanged (an audit healed records without moving a watermark). */
  request(job: { readonly connectionId: string; readonly force: boolean }): Promise<void>;
}
