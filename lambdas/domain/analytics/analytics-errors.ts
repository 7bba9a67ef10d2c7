import { OnboardingError } from "../onboarding/onboarding-errors";

/** A MOP whom no one linked to a CRM user of the connection: their figures are theirs only, so they see none yet. */
export class NotLinkedError extends OnboardingError {
  override readonly name = "NotLinkedError";
  readonly code = "not_linked";
  constructor() {
    super("You are not linked to a manager of this CRM yet. Ask the workspace owner to link you on the connection's settings (Managers).");
  }
}

/** The owner's link change met a change made meanwhile (another tab, another owner session): nothing was changed. */
export class LinkChangedError extends OnboardingError {
  override readonly name = "LinkChangedError";
  readonly code = "conflict";
  constructor() {
    super("the managers' links changed while this change was being made; nothing was changed: reload them and try again");
  }
}
