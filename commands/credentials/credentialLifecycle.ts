import { z } from "zod";
import { CommandError } from "../kit/commandError.ts";

/*
 * What client keys and author tokens share (contract E.3): a credential may expire, be revoked,
 * and get a new secret while its former ones keep working for an overlap.
 */

const MAX_DAYS = 36_500;
const MAX_OVERLAP_HOURS = 720;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const DAYS_RULE =
  `expiresInDays is a number of days greater than 0 (fractions allowed: 0.5 is 12 hours), at most ${MAX_DAYS}; ` +
  "leave it out for a credential that does not expire";
export const expiresInDays = z
  .number({ error: DAYS_RULE })
  .positive({ error: DAYS_RULE })
  .max(MAX_DAYS, { error: DAYS_RULE })
  .optional()
  .meta({
    description:
      "Days until the credential stops working (401 saying it expired), fractions allowed; left out: it does not expire",
    example: 90,
  });

const OVERLAP_RULE = `overlapHours is a number of hours from 0 (the former secrets stop at once) to ${MAX_OVERLAP_HOURS}, fractions allowed; left out it is 24`;
/** `POST /api/admin/{clients|authors}/{id}/rotate`: how long the secrets issued before keep working. */
export const rotateInput = z.strictObject(
  {
    overlapHours: z
      .number({ error: OVERLAP_RULE })
      .min(0, { error: OVERLAP_RULE })
      .max(MAX_OVERLAP_HOURS, { error: OVERLAP_RULE })
      .default(24)
      .meta({
        description: "Hours the former key or token keeps working beside the new one (0: it stops at once)",
        example: 24,
      }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "The body has one optional field, overlapHours (a number of hours, default 24)"
        : undefined,
  },
);

/** Where a credential's stream stands. */
export interface CredentialState {
  exists: boolean;
  revoked: boolean;
  /** ISO time, or null: it does not expire. */
  expiresAt: string | null;
}

export const unregistered = (): CredentialState => ({ exists: false, revoked: false, expiresAt: null });

/** The moment `days` from `now`, as an event keeps it; undefined: no expiry. */
export function expiryAfter(days: number | undefined, now: Date): string | undefined {
  return days === undefined ? undefined : new Date(now.getTime() + days * DAY_MS).toISOString();
}

/** Until when the secrets issued before a rotation at `now` keep working. */
export function overlapEnd(hours: number, now: Date): string {
  return new Date(now.getTime() + hours * HOUR_MS).toISOString();
}

/** A new secret only for a credential that exists, is not revoked and has not expired. */
export function refuseRotationUnlessLive(state: CredentialState, what: "client" | "author", now: Date): void {
  if (!state.exists || state.revoked) {
    throw new CommandError(
      "not-found",
      `There is no such active ${what}; a revoked ${what} stays revoked, so create a new one.`,
      "credential-revoked",
    );
  }
  if (state.expiresAt !== null && Date.parse(state.expiresAt) <= now.getTime()) {
    throw new CommandError(
      "conflict",
      `This ${what} expired at ${state.expiresAt}, and a new ${what === "client" ? "key" : "token"} would not outlive it; create a new ${what} instead.`,
      "credential-expired",
    );
  }
}
