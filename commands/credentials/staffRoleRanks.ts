/* Free of any library, so the staff pages share it (web/staff/session.ts) to offer what a person's roles allow. */

/**
 * The roles of people and their tokens (contract E.2), each allowing what the one after it does
 * and more: `admin` everything of the tenant, `author` the reports (C.3), `clinician` patients,
 * the unmatched queue, the chart, alerts and report history, `viewer` the viewing calls only,
 * `researcher` (contract G.1) the viewing calls of reports of the `research` data source only.
 */
export const STAFF_ROLES = ["admin", "author", "clinician", "viewer", "researcher"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Whether a role a token, session or provider names is one of ours (others are ignored). */
export function isStaffRole(role: string): role is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(role);
}

/** Whether holding `roles` allows what `needed` may do. */
export function rolesAllow(roles: readonly string[], needed: StaffRole): boolean {
  const rank = STAFF_ROLES.indexOf(needed);
  return roles.some((role) => {
    const held = STAFF_ROLES.indexOf(role as StaffRole);
    return held !== -1 && held <= rank;
  });
}
