import { session, type Role } from "./session";
import { managerView, myFiguresView, teamView } from "./team-view";

/** Where each role starts: the owner at the connections, a head of sales at the Team, a manager at their own figures. */
export function landingOf(role: Role): string {
  return role === "owner" ? "#/connections" : role === "ROP" ? "#/team" : "#/my";
}

/**
 * The managers' screens under their hash routes:
 *   #/team[/<connection id>[/managers/<source user id, or ~ for no manager>]]   the owner and ROP
 *   #/my[/<connection id>]                                                       a MOP
 * Returns false when the route is not one of them.
 */
export async function teamRoute(outlet: HTMLElement, parts: readonly string[], navigate: (hash: string) => void): Promise<boolean> {
  const [root, id, screen, key] = parts;
  if (root === "team" && id !== undefined && screen === "managers" && key !== undefined) {
    await managerView(outlet, id, key);
    return true;
  }
  if (root === "team") {
    await teamView(outlet, id, navigate);
    return true;
  }
  if (root === "my") {
    await myFiguresView(outlet, id, navigate);
    return true;
  }
  return false;
}

/** The links of the header for the signed-in role. */
export function roleLinks(): readonly { readonly href: string; readonly label: string }[] {
  const role = session()?.role;
  if (role === "owner") return [{ href: "#/connections", label: "Connections" }, { href: "#/team", label: "Team" }];
  if (role === "ROP") return [{ href: "#/team", label: "Team" }];
  if (role === "MOP") return [{ href: "#/my", label: "My figures" }];
  return [];
}
