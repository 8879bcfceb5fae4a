import { z } from "zod";
import { WARD_PATTERN } from "../../db/wardScope.ts";
import { STAFF_ROLES } from "./staffRoleRanks.ts";

export { STAFF_ROLES, isStaffRole, rolesAllow, type StaffRole } from "./staffRoleRanks.ts";

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
