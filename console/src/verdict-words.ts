import type { VERDICTS } from "./data-trust-api";

/** Why a record is as the store holds it, in an owner's words (the API's own detail is for developers). */
export const VERDICT_WORDS: Readonly<Record<(typeof VERDICTS)[number], { readonly title: string; readonly sentence: string }>> = {
  current: { title: "Up to date", sentence: "Stored as your CRM last sent it." },
  "updated-at-unparseable": { title: "Change date unreadable", sentence: "Stored, but its change date could not be read, so later changes to it reach the service only through an audit." },
  "updated-at-future": { title: "Change date in the future", sentence: "Stored as sent, but its change date is later than now: your CRM's clock or data needs fixing." },
  "healed-by-audit": { title: "Repaired by an audit", sentence: "A sync missed it; an audit found it in your CRM and stored it." },
  "soft-deleted": { title: "Deleted in your CRM", sentence: "Your CRM marked it deleted: it is kept as deleted and counts in no report." },
  "never-returned": { title: "Never sent", sentence: "Your CRM has not sent this record in any sync or audit since the start date." },
  "ahead-of-watermark": { title: "Changed since the last sync", sentence: "Your CRM changed it after the last sync: the next sync brings it." },
};
