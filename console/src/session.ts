/**
 * The signed-in session, in memory only: never localStorage or a cookie, so a
 * reload or a closed tab signs the owner out and no script on another page can
 * read it.
 */
export type Role = "owner" | "ROP" | "MOP";
export const ROLES: readonly Role[] = ["owner", "ROP", "MOP"];

export interface Session {
  readonly token: string;
  readonly workspace: string;
  readonly role: Role;
}

let current: Session | null = null;

export function session(): Session | null {
  return current;
}

export function signIn(next: Session): void {
  current = next;
}

export function signOut(): void {
  current = null;
}

export function isOwner(): boolean {
  return current?.role === "owner";
}
