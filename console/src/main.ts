import { alertsControl } from "./alerts";
import { setApiBase, whenSignedOut } from "./api";
import { connectionsView } from "./connections-view";
import { h, replace } from "./dom";
import { forgetOverview } from "./overview";
import { matchRoute } from "./route-table";
import { isOwner, session, signOut } from "./session";
import { completeOidcSignIn, configureOidc, forgetOidcUser, isOidcCallback, OidcSignInError } from "./oidc-sign-in";
import { loadRuntimeConfig, type RuntimeConfig } from "./runtime-config";
import { notConfiguredView, oidcSignInView, signInView } from "./sign-in-view";
import { landingOf, roleLinks } from "./team-routes";

const app = document.getElementById("app")!;
const header = h("header", { class: "top" });
const main = h("main", { id: "main" });
app.replaceChildren(header, main);

let stopView: (() => void) | void = undefined;
let signInReason: string | null = null;
let authMode: RuntimeConfig["auth"]["mode"] = "dev";

function navigate(hash: string): void {
  if (location.hash === hash) void render();
  else location.hash = hash;
}

function renderHeader(): void {
  const current = session();
  replace(header,
    h("a", { class: "brand", href: current ? landingOf(current.role) : "#/connections" }, "CRM connections"),
    current ? h("nav", { class: "role-links", "aria-label": "Sections" }, roleLinks().map((link) => h("a", { href: link.href }, link.label))) : null,
    // The overview and the notifications are the owner's (the API answers anyone else 403).
    current && isOwner() ? alertsControl() : null,
    current
      ? h(
          "div",
          { class: "who" },
          h("span", null, `${current.workspace} · ${current.role}`),
          h(
            "button",
            {
              type: "button",
              onclick: () => {
                signOut();
                void forgetOidcUser();
                signInReason = null;
                navigate("#/sign-in");
              },
            },
            "Sign out",
          ),
        )
      : null,
  );
}

/** Hash routes: the server serves one page, so any route survives the API's same-origin rules without a fallback. */
async function render(): Promise<void> {
  if (typeof stopView === "function") stopView();
  stopView = undefined;
  forgetOverview();
  renderHeader();
  const route = location.hash.replace(/^#/, "") || "/connections";
  if (session() === null) {
    // The dev sign-in exists only when the config says dev: in oidc mode (AWS) it is never rendered.
    if (authMode === "oidc") oidcSignInView(main, signInReason, location.hash.startsWith("#/") && location.hash !== "#/sign-in" ? location.hash : "#/connections");
    else
      signInView(main, signInReason, () => {
        signInReason = null;
        navigate(landingOf(session()?.role ?? "owner"));
      });
  } else {
    const parts = route.split("/").filter(Boolean).map(decodeURIComponent);
    // A ROP or MOP never lands on the owner's pages (the API would answer them 403): the connections are their figures.
    const role = session()!.role;
    if (role !== "owner" && (parts.length === 0 || (parts[0] === "connections" && parts.length === 1))) parts.splice(0, parts.length, role === "ROP" ? "team" : "my");
    // Every screen's route is one row of route-table.ts; anything else shows the list.
    const matched = matchRoute(parts);
    if (matched === null) await connectionsView(main);
    else stopView = await matched.view({ outlet: main, params: matched.params, navigate });
  }
  // Keyboard and screen-reader users land on the new page's heading, unless they have already moved on to one of
  // its controls while the rest of it loaded: taking focus back would send their next key press nowhere.
  if (!main.contains(document.activeElement)) main.querySelector<HTMLElement>("h1")?.focus();
}

// A 401 anywhere: back to sign in, saying why.
whenSignedOut(() => {
  signInReason = "Your session ended. Sign in again.";
  void forgetOidcUser();
  void render();
});
async function boot(): Promise<void> {
  let config: RuntimeConfig;
  try {
    config = await loadRuntimeConfig();
  } catch (error) {
    notConfiguredView(main, (error as Error).message);
    main.querySelector<HTMLElement>("h1")?.focus();
    return;
  }
  authMode = config.auth.mode;
  if (config.apiBaseUrl !== undefined) setApiBase(config.apiBaseUrl);
  if (config.auth.mode === "oidc") {
    configureOidc(config.auth);
    if (isOidcCallback()) {
      try {
        const returnTo = await completeOidcSignIn();
        if (location.hash !== returnTo) history.replaceState(null, "", `${location.pathname}${returnTo}`);
      } catch (error) {
        if (!(error instanceof OidcSignInError)) throw error;
        signInReason = error.message;
      }
    }
  }
  window.addEventListener("hashchange", () => void render());
  await render();
}
void boot();
