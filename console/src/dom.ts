/** A tiny element builder: text goes in as text nodes, never as HTML, so no record can inject markup. */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  readonly [attribute: string]: string | number | boolean | undefined | null | EventListener | ((event: any) => void);
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: (Child | readonly Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (name === "value" && "value" in element) {
      (element as HTMLInputElement).value = String(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly (Child | readonly Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Element, ...children: (Child | readonly Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let ids = 0;
/** A fresh element id, for label/aria-describedby pairs. */
export function uid(prefix: string): string {
  ids += 1;
  return `${prefix}-${ids}`;
}

// Times and durations are formatted in one module (time.ts); re-exported for the views that import them from here.
export { duration, when } from "./time";
