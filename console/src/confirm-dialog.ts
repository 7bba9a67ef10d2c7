import { h, uid } from "./dom";

/**
 * Asks before an action that cannot be taken back: a modal <dialog> that names the consequence, with the safe
 * choice focused first. Enter on it, Escape, or the cancel button answer false and change nothing; only the
 * confirm button answers true. Focus returns to where it was.
 */
export function confirmAction(options: {
  readonly title: string;
  readonly consequences: readonly string[];
  readonly confirmLabel: string;
  readonly cancelLabel?: string;
}): Promise<boolean> {
  const titleId = uid("confirm-title");
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const cancel = h("button", { type: "button" }, options.cancelLabel ?? "Cancel, change nothing");
  const confirm = h("button", { type: "button", class: "danger" }, options.confirmLabel);
  const dialog = h(
    "dialog",
    { class: "confirm", "aria-labelledby": titleId },
    h("h2", { id: titleId }, options.title),
    options.consequences.map((line) => h("p", null, line)),
    h("div", { class: "actions" }, cancel, confirm),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    const answer = (yes: boolean) => {
      dialog.close();
      dialog.remove();
      before?.focus();
      resolve(yes);
    };
    cancel.addEventListener("click", () => answer(false));
    confirm.addEventListener("click", () => answer(true));
    // Escape: the browser's own cancel.
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      answer(false);
    });
    dialog.showModal();
    cancel.focus();
  });
}
