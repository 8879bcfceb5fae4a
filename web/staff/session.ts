/**
 * The signed-in person's token and tenant, in sessionStorage: it lives as long as the tab and is
 * never sent anywhere but the service's own `/api` (no cookie, so no cross-site request can use it).
 */
export interface Session {
  token: string;
  tenant: string;
}

const KEY = "dialysis-hub.staff.session";

export function loadSession(): Session | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<Session> | null;
    return stored && typeof stored.token === "string" && typeof stored.tenant === "string" && stored.token ? { token: stored.token, tenant: stored.tenant } : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** `dha_YK…`: enough to tell two tokens apart on screen, far too little to use. */
export function tokenHint(token: string): string {
  return token.length > 16 ? `${token.slice(0, 6)}…` : "…";
}
