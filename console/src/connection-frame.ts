import { api, connectionPath, type Connection } from "./api";
import { h } from "./dom";
import { readOnlyNote } from "./read-only-note";

/** The connection page's sections, each with its own address (docs/console.md). */
export const SECTIONS = [
  { id: "status", label: "Status" },
  { id: "runs", label: "Runs" },
  { id: "data", label: "Data" },
  { id: "settings", label: "Settings" },
] as const;
export type SectionId = (typeof SECTIONS)[number]["id"];

export const connectionHref = (id: string, section: SectionId = "status") =>
  `#/connections/${encodeURIComponent(id)}${section === "status" ? "" : `/${section}`}`;

/** What a section or a page under it renders into, with the connection it is about. */
export interface Frame {
  readonly connection: Connection;
  readonly body: HTMLElement;
  /** Shows a change of the connection (a rename) in the frame's heading. */
  readonly renamed: (connection: Connection) => void;
}

/**
 * One connection's frame: its name (the URL under it) and the links to its four sections, the current one marked.
 * A section page's heading is the connection's name; a page under a section (a run, the records, the funnel) has its
 * own heading, and the name above it links back. Null, with the reason shown, when the connection cannot be read.
 */
export async function connectionFrame(outlet: HTMLElement, id: string, section: SectionId, options: { readonly subpage?: boolean } = {}): Promise<Frame | null> {
  const status = h("p", { role: "status", "aria-live": "polite" }, "Loading…");
  outlet.replaceChildren(h("h1", { tabindex: "-1" }, "Connection"), readOnlyNote() ?? "", status);
  let connection: Connection;
  try {
    connection = await api<Connection>("GET", connectionPath(id));
  } catch (error) {
    status.textContent = (error as Error).message;
    return null;
  }
  const name = h(options.subpage === true ? "a" : "h1", options.subpage === true ? { href: connectionHref(id, section), class: "context-name" } : { tabindex: "-1" });
  const url = h("p", { class: "secondary" });
  const renamed = (current: Connection) => {
    name.textContent = current.name ?? current.base_url;
    url.textContent = current.base_url;
    url.hidden = current.name === null || options.subpage === true;
  };
  renamed(connection);
  const body = h("div", { class: "section-body" });
  outlet.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: "#/connections" }, "All connections"), options.subpage === true ? [" › ", name] : null),
    options.subpage === true ? "" : name,
    url,
    h(
      "nav",
      { class: "sections", "aria-label": "Connection sections" },
      h(
        "ul",
        null,
        SECTIONS.map((entry) =>
          h("li", null, h("a", { href: connectionHref(id, entry.id), ...(entry.id === section ? { "aria-current": options.subpage === true ? "true" : "page" } : {}) }, entry.label)),
        ),
      ),
    ),
    body,
  );
  return { connection, body, renamed };
}
