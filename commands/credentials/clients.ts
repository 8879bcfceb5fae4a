import { z } from "zod";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import type { ClientEvent } from "./events.ts";


export const registerClientInput = z.object({
  name: z.string().trim().min(1, "name is required: the sending system's name, e.g. 'Central lab LIS'").max(100),
  tenant: z.string().regex(TENANT_PATTERN, "tenant must match [A-Za-z0-9_-]{1,64}"),
});

/** What `POST /api/admin/clients` answers: the key is shown this once, only its digest is stored. */
export const issuedClientKey = z.object({ clientId: z.string(), key: z.string().meta({ description: "The open-API client key, shown once" }) });

export const clientCodeMapInput = z.object({
  codeMap: z.record(z.string().trim().min(1).max(64), z.string().trim().min(1).max(64)),
});

export interface ClientState {
  exists: boolean;
  revoked: boolean;
}

export type ClientCommand =
  | { type: "register"; clientId: string; name: string; keyDigest: string }
  | { type: "revoke" }
  | { type: "setCodeMap"; codeMap: Record<string, string> };

export const clientDecider: Decider<ClientState, ClientCommand, ClientEvent> = {
  initialState: () => ({ exists: false, revoked: false }),
  evolve: (state, event) => {
    switch (event.type) {
      case "ClientRegistered":
        return { exists: true, revoked: false };
      case "ClientRevoked":
        return { ...state, revoked: true };
      case "ClientCodeMapSet":
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "register":
        if (state.exists) throw new CommandError("conflict", "a client with this id exists already");
        return [{ type: "ClientRegistered", data: { clientId: command.clientId, name: command.name, keyDigest: command.keyDigest } }];
      case "revoke":
        if (!state.exists) throw new CommandError("not-found", "There is no such client; list clients with the CLI to find its id.");
        return state.revoked ? [] : [{ type: "ClientRevoked", data: {} }];
      case "setCodeMap":
        if (!state.exists || state.revoked) throw new CommandError("not-found", "There is no such active client.");
        return [{ type: "ClientCodeMapSet", data: { codeMap: command.codeMap } }];
    }
  },
};
