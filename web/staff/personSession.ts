import type { staffSessionAnswer } from "../../src/staffSessions/staffSessionRoutes.ts";
import type { z } from "zod";
import { isStaffRole } from "../../commands/credentials/staffRoleRanks.ts";
import type { Session } from "./session.ts";

/*
 * A person signed in through the hospital's identity provider (contract E.1): the session is an
 * HttpOnly cookie the pages never see; `GET /staff/session` says who it is and gives the CSRF
 * token that every change sends.
 */

/** The signed-in person's session, or null when there is none (never signed in, ended, signed out). */
export async function personSession(): Promise<Extract<Session, { kind: "person" }> | null> {
  const response = await fetch("/staff/session", {
    credentials: "same-origin",
    cache: "no-store",
    headers: { accept: "application/json" },
  });
  if (!response.ok) return null;
  const answer = (await response.json()) as z.infer<typeof staffSessionAnswer>;
  return {
    kind: "person",
    tenant: answer.tenant,
    csrf: answer.csrf,
    caller: { who: answer.name, roles: answer.roles.filter(isStaffRole), wards: answer.wards },
  };
}

/**
 * Ends the session at the service (`POST /staff/logout`); answers where the provider ends its
 * own (its end-session URL), or null when it has none. Throws when the service did not end it.
 */
export async function signOutPerson(session: Extract<Session, { kind: "person" }>): Promise<string | null> {
  const response = await fetch("/staff/logout", {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { "x-csrf-token": session.csrf },
  });
  // 401: the session had ended already, which is what signing out wants.
  if (response.status !== 204 && response.status !== 401) throw new Error(`sign-out answered ${response.status}`);
  return response.headers.get("location");
}

const RETURN_KEY = "dialysis-hub.staff.return";

/** Keeps the page and language the person is on, for when the provider sends them back to /staff. */
export function rememberReturn(): void {
  if (location.search || location.hash) sessionStorage.setItem(RETURN_KEY, `${location.search}${location.hash}`);
}

export function forgetReturn(): void {
  sessionStorage.removeItem(RETURN_KEY);
}

/** Back from the provider: reloads the page the person left from, if that was another; true when it does. */
export function returnAfterSignIn(): boolean {
  const back = sessionStorage.getItem(RETURN_KEY);
  forgetReturn();
  if (!back || back === `${location.search}${location.hash}` || !/^[?#]/.test(back)) return false;
  location.replace(`${location.pathname}${back}`);
  return true;
}
