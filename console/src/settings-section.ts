import type { Frame } from "./connection-frame";
import { deleteCard } from "./delete-card";
import { managersCard } from "./managers-card";
import { preflightCard } from "./preflight-card";
import { resetForm } from "./reset-form";
import { scheduleCard } from "./schedule-controls";
import { isOwner } from "./session";
import { settingsForm } from "./settings-form";
import { testCard } from "./test-card";
import { tokenForm } from "./token-form";

/** The Settings section: the connection's settings, its token, its managers' links, tests, schedule, reading again, and delete. The owner's only. */
export function settingsSection(frame: Frame, navigate: (hash: string) => void): void {
  const { connection, body } = frame;
  // Every control here changes the connection: the API answers anyone but the owner 403.
  if (!isOwner()) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(
    settingsForm(connection, frame.renamed),
    testCard(connection.id),
    preflightCard(connection.id),
    tokenForm(connection),
    managersCard(connection),
    scheduleCard(connection),
    resetForm(connection, navigate),
    deleteCard(connection, navigate),
  );
}
