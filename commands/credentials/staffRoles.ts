import { z } from "zod";
import { WARD_PATTERN } from "../../db/wardScope.ts";

/**
 * The roles of people and their tokens (contract E.2), each allowing what the one after it does
 * and more: `admin` everything of the tenant, `author` the reports (C.3), `clinician` patients,
 * the unmatched queue, the chart, alerts and report history, `viewer` the viewing calls only.
 */
export const STAFF_ROLES = ["admin", "author", "clinician", "viewer"] as const;
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

/** Roles of an author token as the admin call takes them; absent: ["author"], as every token made before. */
export const staffRolesInput = z
  .array(z.enum(STAFF_ROLES, { error: `a role is one of ${STAFF_ROLES.join(", ")}` }))
  .min(1, "roles lists at least one role; leave it out for an author")
  .max(STAFF_ROLES.length)
  .refine((roles) => new Set(roles).size === roles.length, "roles names each role once");

/** Wards of a token or session: its holder sees the patients of these only. Absent: every ward. */
export const wardsInput = z
  .array(z.string().regex(WARD_PATTERN, "a ward is 1 to 64 characters, as the patients carry it"))
  .max(200, "at most 200 wards; leave wards out for every ward")
  .refine((wards) => new Set(wards).size === wards.length, "wards names each ward once");
