import type { Context } from "koa";
import type { CommandContext } from "../../commands/kit/commandContext.ts";
import type { EventMetadata, EventStore } from "../../db/eventStore.ts";
import type { Client } from "../../queries/credentials/credentials.ts";
import { commandContext } from "../app/commandContexts.ts";
import type { CredentialCheck } from "../credentials/credentialCheck.ts";
import type { CredentialWatch, HeldCredential } from "../credentials/credentialWatch.ts";
import type { PushTally } from "../metrics/serviceMetrics.ts";
import type { StaffRole } from "../../commands/credentials/staffRoles.ts";
import type { SessionStore } from "../staffSessions/sessionStore.ts";
import type { ShownSubjects } from "../access/shownSubjects.ts";
import type { ListTurns } from "./listTurns.ts";

/*
 * What a request carries through its middleware, typed once: every route reads `ctx.state` as
 * this, with no cast. Who is calling (the principal) is set by the interface's authentication
 * middleware, once; routes read it through principalOf and build their commands' metadata from it.
 */

/** What a credential lets its holder do: a person's roles (contract E.2), or sending reports. */
export type Role = StaffRole | "sender";

/**
 * Who is calling, typed once for every route: the operator, an author token of a tenant, a person
 * signed in through the identity provider (a staff session), or a sending system (a client key).
 * `wards`: the wards whose patients the caller may see (null: every ward), applied to every read
 * of the request by db/wardScope.ts.
 */
export type Principal =
  | { credential: "admin-token"; who: "admin"; tenant: null; roles: readonly Role[]; wards: null }
  | {
      credential: "author-token";
      who: string;
      tenant: string;
      roles: readonly Role[];
      wards: readonly string[] | null;
      authorId: string;
    }
  | {
      credential: "staff-session";
      who: string;
      tenant: string;
      roles: readonly Role[];
      wards: readonly string[] | null;
      sub: string;
    }
  | { credential: "client-key"; who: string; tenant: string; roles: readonly Role[]; wards: null; client: Client };

/** The operator, holding the ADMIN_TOKEN: any tenant, every role. */
export const OPERATOR: Principal = {
  credential: "admin-token",
  who: "admin",
  tenant: null,
  roles: ["admin"],
  wards: null,
};

declare module "koa" {
  interface DefaultState {
    /** Set by requestId(): the caller's X-Request-Id, or a new one. */
    requestId: string;
    /** Set by resolveTenant() (X-Service-Tenant), or by requireClient() (the key's tenant). */
    tenant: string;
    /** Set by offerCredentialCheck() in each interface's chain (httpApp.ts): how the authentication middleware checks a key or token. */
    credentials?: CredentialCheck;
    /** Set by embedCors() when a sandboxed embed page's call carries an embed token naming the session that opened the page. */
    embedSession?: string;
    /** Set by offerStaffSessions() on /api and /fhir/r4: where a session cookie is looked up. */
    sessions?: SessionStore;
    /** Set by the interface's authentication middleware (requireAuthor, requireClient). */
    principal?: Principal;
    /** Set with the principal of a token or session (not the ADMIN_TOKEN): the credential a long-lived answer watches (watchCaller). */
    held?: HeldCredential;
    /** Set by offerCredentialWatch() on /api: tells a long-lived answer when its credential ends. */
    watch?: CredentialWatch;
    /** Set by offerListTurns() on /api and /open/v1: the turns a tenant's list pages take (src/http/listTurns.ts). */
    listTurns?: ListTurns;
    /** A push's tally, left for countPushes. */
    push?: PushTally;
    /** What the answer shows of patients, left for the access log (src/access/accessRecording.ts). */
    shown?: ShownSubjects;
  }
}

/** The caller, on a route behind authentication; a route without it is a wiring fault, not a client's. */
export function principalOf(ctx: Pick<Context, "state">): Principal {
  const principal = ctx.state.principal;
  if (!principal) throw new Error("this route reads its caller but has no authentication middleware");
  return principal;
}

/** The sending system, on a route behind requireClient. */
export function clientOf(ctx: Pick<Context, "state">): Client {
  const principal = principalOf(ctx);
  if (principal.credential !== "client-key")
    throw new Error("this route reads its client but is not behind requireClient");
  return principal.client;
}

/** Who caused the events a staff or operator call appends, and in which request. */
export function eventMetadataOf(ctx: Pick<Context, "state">): EventMetadata {
  return { actor: principalOf(ctx).who, requestId: ctx.state.requestId };
}

/** A command's context for this request: the store, who asks, and read-your-writes. */
export function commandContextOf(ctx: Pick<Context, "state">, store: EventStore): CommandContext {
  return commandContext(store, eventMetadataOf(ctx));
}
