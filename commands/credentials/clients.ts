import { z } from "zod";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { expiresInDays, refuseRotationUnlessLive, unregistered, type CredentialState } from "./credentialLifecycle.ts";
import type { ClientEvent } from "./events.ts";

export const registerClientInput = z.object({
  name: z.string().trim().min(1, "name is required: the sending system's name, e.g. 'Central lab LIS'").max(100),
  tenant: z.string().regex(TENANT_PATTERN, "tenant must match [A-Za-z0-9_-]{1,64}"),
  expiresInDays,
});

/** What `POST /api/admin/clients` (and `…/rotate`) answers: the key is shown this once, only its digest is stored. */
export const issuedClientKey = z.object({
  clientId: z.string(),
  key: z.string().meta({ description: "The open-API client key, shown once" }),
});

export const clientCodeMapInput = z.object({
  codeMap: z.record(z.string().trim().min(1).max(64), z.string().trim().min(1).max(64)),
});

export type ClientState = CredentialState;

export type ClientCommand =
  | { type: "register"; clientId: string; name: string; keyDigest: string; expiresAt?: string }
  | { type: "revoke" }
  | { type: "setCodeMap"; codeMap: Record<string, string> }
  | { type: "rotate"; keyDigest: string; now: Date; formerKeysValidUntil: string };

export const clientDecider: Decider<ClientState, ClientCommand, ClientEvent> = {
  initialState: unregistered,
  evolve: (state, event) => {
    switch (event.type) {
      case "ClientRegistered":
        return { exists: true, revoked: false, expiresAt: event.data.expiresAt ?? null };
      case "ClientRevoked":
        return { ...state, revoked: true };
      case "ClientCodeMapSet":
      case "ClientKeyRotated":
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "register": {
        if (state.exists)
          throw new CommandError("conflict", "a client with this id exists already", "credential-exists");
        const { clientId, name, keyDigest, expiresAt } = command;
        return [{ type: "ClientRegistered", data: { clientId, name, keyDigest, ...(expiresAt ? { expiresAt } : {}) } }];
      }
      case "revoke":
        if (!state.exists)
          throw new CommandError(
            "not-found",
            "There is no such client; GET /api/admin/clients lists the clients of a tenant.",
            "credential-not-found",
          );
        return state.revoked ? [] : [{ type: "ClientRevoked", data: {} }];
      case "setCodeMap":
        if (!state.exists || state.revoked)
          throw new CommandError("not-found", "There is no such active client.", "credential-revoked");
        return [{ type: "ClientCodeMapSet", data: { codeMap: command.codeMap } }];
      case "rotate":
        refuseRotationUnlessLive(state, "client", command.now);
        return [
          {
            type: "ClientKeyRotated",
            data: { keyDigest: command.keyDigest, formerKeysValidUntil: command.formerKeysValidUntil },
          },
        ];
    }
  },
};
