import { session, type Role } from "./session";

/** Where each role starts: the owner at the connections, a head of sales at the Team, a manager at their own figures. */
export function landingOf(role: Role): string {
  return role === "owner" ? "#/connections" : role === "ROP" ? "#/team" : "#/my";
}

/** The links of the header for the signed-in role. */
export function roleLinks(): readonly { readonly href: string; readonly label: string }[] {
  const role = session()?.role;
  if (role === "owner") return [{ href: "#/connections", label: "Connections" }, { href: "#/team", label: "Team" }];
  if (role === "ROP") return [{ href: "#/team", label: "Team" }];
  if (role === "MOP") return [{ href: "#/my", label: "My figures" }];
  return [];
}
