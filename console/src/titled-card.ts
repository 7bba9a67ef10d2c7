import { h, type Child } from "./dom";

/**
 * A card with its heading: a section that screen readers name by its h2 (`aria-labelledby` the heading's id).
 * `className` adds to "card" (e.g. "danger-zone").
 */
export function titledCard(heading: { readonly id: string; readonly title: string; readonly className?: string }, ...children: (Child | readonly Child[])[]): HTMLElement {
  const className = heading.className === undefined ? "card" : `card ${heading.className}`;
  return h("section", { class: className, "aria-labelledby": heading.id }, h("h2", { id: heading.id }, heading.title), ...children);
}
