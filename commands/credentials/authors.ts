import { staffRolesInput, wardsInput } from "./staffRoles.ts";
import { z } from "zod";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { refuseRotationUnlessLive, unregistered, type CredentialState } from "./credentialLifecycle.ts";
import { registerClientInput } from "./clients.ts";
import type { AuthorEvent } from "./events.ts";

export const registerAuthorInput = registerClientInput.extend({
  name: z
    .string()
    .trim()
    .min(1, "name is required: the author's name, shown as 'who' on the versions they publish")
    .max(100),
  roles: staffRolesInput.optional().meta({
    description: 'What the token may do (contract E.2): admin, author, clinician, viewer. Default ["author"]',
  }),
  wards: wardsInput
    .optional()
    .meta({ description: "The wards whose patients the token may see; leave out for every ward" }),
});

/** What `POST /api/admin/authors` (and `…/rotate`) answers: the token is shown this once, only its digest is stored. */
export const issuedAuthorToken = z.object({
  authorId: z.string(),
  token: z.string().meta({ description: "The authoring token, shown once" }),
});

export type AuthorCommand =
  | {
      type: "register";
      authorId: string;
      name: string;
      tokenDigest: string;
      expiresAt?: string;
      roles?: string[];
      wards?: string[];
    }
  | { type: "revoke" }
  | { type: "rotate"; tokenDigest: string; now: Date; formerTokensValidUntil: string };

export const authorDecider: Decider<CredentialState, AuthorCommand, AuthorEvent> = {
  initialState: unregistered,
  evolve: (state, event) => {
    switch (event.type) {
      case "AuthorRegistered":
        return { exists: true, revoked: false, expiresAt: event.data.expiresAt ?? null };
      case "AuthorRevoked":
        return { ...state, revoked: true };
      case "AuthorTokenRotated":
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "register": {
        if (state.exists)
          throw new CommandError("conflict", "an author with this id exists already", "credential-exists");
        const { authorId, name, tokenDigest, expiresAt, roles, wards } = command;
        return [
          {
            type: "AuthorRegistered",
            data: {
              authorId,
              name,
              tokenDigest,
              ...(expiresAt ? { expiresAt } : {}),
              ...(roles ? { roles } : {}),
              ...(wards ? { wards } : {}),
            },
          },
        ];
      }
      case "revoke":
        if (!state.exists)
          throw new CommandError(
            "not-found",
            "There is no such author; GET /api/admin/authors lists them.",
            "credential-not-found",
          );
        return state.revoked ? [] : [{ type: "AuthorRevoked", data: {} }];
      case "rotate":
        refuseRotationUnlessLive(state, "author", command.now);
        return [
          {
            type: "AuthorTokenRotated",
            data: { tokenDigest: command.tokenDigest, formerTokensValidUntil: command.formerTokensValidUntil },
          },
        ];
    }
  },
};
