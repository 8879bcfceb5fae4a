import { rolesAllow, type StaffRole } from "../../commands/credentials/staffRoleRanks.ts";

export type { StaffRole };

/** Who is signed in, as the service says (`GET /api/me`, `GET /staff/session`). */
export interface Caller {
  who: string;
  roles: StaffRole[];
  /** The wards whose patients they see; null: every ward. */
  wards: string[] | null;
}

/**
 * How the pages call `/api`:
 * - `token`: an author token pasted by the person (machines, and deployments without an identity
 *   provider). It is kept in sessionStorage: it lives as long as the tab and is sent only as the
 *   Authorization header of the service's own calls (no cookie, so no cross-site request can use it).
 * - `person`: signed in through the hospital's identity provider (contract E.1). The browser holds
 *   an HttpOnly session cookie the pages cannot read; changes carry the session's CSRF token.
 */
export type Session =
  | { kind: "token"; token: string; tenant: string; caller: Caller }
  | { kind: "person"; tenant: string; caller: Caller; csrf: string };

/** What sessionStorage keeps of a token sign-in: the caller is asked again on every page load. */
export interface StoredToken {
  token: string;
  tenant: string;
}

const KEY = "dialysis-hub.staff.session";

export function loadStoredToken(): StoredToken | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<StoredToken> | null;
    return stored && typeof stored.token === "string" && typeof stored.tenant === "string" && stored.token
      ? { token: stored.token, tenant: stored.tenant }
      : null;
  } catch {
    return null;
  }
}

export function saveStoredToken(session: StoredToken): void {
  sessionStorage.setItem(KEY, JSON.stringify({ token: session.token, tenant: session.tenant }));
}

export function clearStoredToken(): void {
  sessionStorage.removeItem(KEY);
}

/** Whether the signed-in caller's roles allow what needs `role` (the server decides; the pages only leave out what would be refused). */
export function may(session: Session, role: StaffRole): boolean {
  return rolesAllow(session.caller.roles, role);
}

/** `dha_YK…`: enough to tell two tokens apart on screen, far too little to use. */
export function tokenHint(token: string): string {
  return token.length > 16 ? `${token.slice(0, 6)}…` : "…";
}

/** What says who calls, on every call of the session: its token, or its cookie and (on changes) its CSRF token; and its tenant. */
export function credentialsOf(
  session: Session,
  method: string,
): { headers: Record<string, string>; credentials: RequestCredentials } {
  const headers: Record<string, string> = { "x-service-tenant": session.tenant };
  if (session.kind === "token") {
    headers.authorization = `Bearer ${session.token}`;
    return { headers, credentials: "omit" };
  }
  if (method !== "GET") headers["x-csrf-token"] = session.csrf;
  return { headers, credentials: "same-origin" };
}
