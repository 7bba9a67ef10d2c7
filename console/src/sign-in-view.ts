import { ApiError } from "./api";
import { h } from "./dom";
import { formField, statusLine } from "./form-field";
import { startOidcSignIn } from "./oidc-sign-in";
import { ROLES, signIn, type Role } from "./session";

/** What each role sees, said once for both sign-ins. */
export const ROLE_HINT =
  "The owner connects CRMs and sees every manager's figures; a head of sales (ROP) sees every manager's figures; a manager (MOP) sees their own figures once linked to their CRM user.";

/**
 * Sign-in at the workspace's identity provider (`auth.mode` oidc): one button
 * that leaves for the provider; the page comes back with a code. No workspace
 * or role field: the provider's token carries both.
 */
export function oidcSignInView(outlet: HTMLElement, reason: string | null, returnTo: string): void {
  const status = statusLine();
  const button = h("button", { type: "button", class: "primary" }, "Sign in with your identity provider");
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Going to the identity provider…";
    try {
      await startOidcSignIn(returnTo);
    } catch (error) {
      status.textContent = `The identity provider could not be reached: ${(error as Error).message}`;
      button.disabled = false;
    }
  });
  outlet.replaceChildren(
    h(
      "section",
      { class: "card narrow" },
      h("h1", { tabindex: "-1" }, "Sign in"),
      h("p", { class: "note" }, "You sign in at your workspace's identity provider. Your session lives in this tab and ends when you close or reload it."),
      h("p", { class: "hint" }, ROLE_HINT),
      reason ? h("p", { class: "alert", role: "alert" }, reason) : null,
      button,
      status,
    ),
  );
}

/** /config.json could not be used: say so, and offer no sign-in (never the dev one). */
export function notConfiguredView(outlet: HTMLElement, message: string): void {
  outlet.replaceChildren(
    h(
      "section",
      { class: "card narrow" },
      h("h1", { tabindex: "-1" }, "The console is not configured"),
      h("p", { class: "alert", role: "alert" }, message),
    ),
  );
}

/**
 * The local runtime's development sign-in: a workspace and a role, and the
 * server mints the same session token `npm run token` prints. In AWS the
 * workspace's identity provider takes its place.
 */
export function signInView(outlet: HTMLElement, reason: string | null, done: () => void): void {
  const workspace = formField({ name: "workspace", label: "Workspace", required: true, attributes: { autocomplete: "organization" } });
  const role = formField({ name: "role", label: "Role", options: ROLES, hint: ROLE_HINT });
  const email = formField({ name: "email", label: "Email (optional)", type: "email", hint: "A manager whose email is a CRM user's email sees that user's figures.", attributes: { autocomplete: "email" } });
  const status = statusLine();
  const form = h(
    "form",
    {
      class: "card narrow",
      novalidate: true,
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        workspace.setError(null);
        role.setError(null);
        email.setError(null);
        status.textContent = "Signing in…";
        try {
          const response = await fetch("/dev/sign-in", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ workspace: workspace.input.value, role: role.input.value, ...(email.input.value.trim() === "" ? {} : { email: email.input.value }) }),
          });
          const body = (await response.json()) as { token?: string; error?: { message: string; field?: string; rule?: string } };
          if (!response.ok || !body.token) {
            const error = new ApiError(response.status, "", body.error?.message ?? "sign-in failed", body.error?.field, body.error?.rule);
            if (error.field === "workspace") workspace.setError(`Workspace ${error.rule ?? error.message}`);
            else if (error.field === "role") role.setError(`Role ${error.rule ?? error.message}`);
            else if (error.field === "email") email.setError(`Email ${error.rule ?? error.message}`);
            status.textContent = error.field ? "" : error.message;
            (error.field === "role" ? role.input : workspace.input).focus();
            return;
          }
          signIn({ token: body.token, workspace: workspace.input.value.trim(), role: role.input.value as Role });
          done();
        } catch {
          status.textContent = "The local service did not answer: is `npm start` running?";
        }
      },
    },
    h("h1", { tabindex: "-1" }, "Sign in"),
    h("p", { class: "note" }, "Development sign-in: offered by the local runtime only. Your session lives in this tab and ends when you close or reload it."),
    reason ? h("p", { class: "alert", role: "alert" }, reason) : null,
    workspace.element,
    role.element,
    email.element,
    h("button", { type: "submit", class: "primary" }, "Sign in"),
    status,
  );
  outlet.replaceChildren(form);
}
