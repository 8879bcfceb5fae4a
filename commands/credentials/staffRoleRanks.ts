/* Free of any library, so the staff pages share it (web/staff/session.ts) to offer what a person's roles allow. */

/**
 * The roles of people and their tokens (contract E.2), each allowing what the one after it does
 * and more: `admin` everything of the tenant, `author` the reports (C.3), `clinician` patients,
 * the unmatched queue, the chart, alerts and report history, `viewer` the viewing calls only,
 * `researcher` (contract G.1) the viewing calls of reports of the `research` data source only.
 * `integrator` (contract G.5) stands beside the ranks: the received messages, which only `admin`
 * may read besides; it allows nothing of the ranked roles.
 */
export const STAFF_ROLES = ["admin", "author", "clinician", "viewer", "researcher", "integrator"] as const;
const RANKED: readonly string[] = ["admin", "author", "clinician", "viewer", "researcher"];
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Whether a role a token, session or provider names is one of ours (others are ignored). */
export function isStaffRole(role: string): role is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(role);
}

/** Whether holding `roles` allows what `needed` may do. */
export function rolesAllow(roles: readonly string[], needed: StaffRole): boolean {
  if (needed === "integrator") return roles.includes("admin") || roles.includes("integrator");
  const rank = RANKED.indexOf(needed);
  return roles.some((role) => {
    const held = RANKED.indexOf(role);
    return held !== -1 && held <= rank;
  });
}
