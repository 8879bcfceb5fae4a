import type { Context } from "koa";
import type { CommandContext } from "../../commands/kit/commandContext.ts";
import type { EventMetadata, EventStore } from "../../db/eventStore.ts";
import type { Client } from "../../queries/credentials/credentials.ts";
import { commandContext } from "../app/commandContexts.ts";
import type { PushTally } from "../metrics/serviceMetrics.ts";
import type { ShownSubjects } from "../access/shownSubjects.ts";

/*
 * What a request carries through its middleware, typed once: every route reads `ctx.state` as
 * this, with no cast. Who is calling (the principal) is set by the interface's authentication
 * middleware, once; routes read it through principalOf and build their commands' metadata from it.
 */

/** What a credential lets its holder do. */
export type Role = "admin" | "author" | "sender";

/** Who is calling: the operator, an author of a tenant, or a sending system (a client key). */
export type Principal =
  | { credential: "admin-token"; who: "admin"; tenant: null; roles: readonly Role[] }
  | { credential: "author-token"; who: string; tenant: string; roles: readonly Role[] }
  | { credential: "client-key"; who: string; tenant: string; roles: readonly Role[]; client: Client };

/** The operator, holding the ADMIN_TOKEN: any tenant. */
export const OPERATOR: Principal = { credential: "admin-token", who: "admin", tenant: null, roles: ["admin", "author"] };

declare module "koa" {
  interface DefaultState {
    /** Set by requestId(): the caller's X-Request-Id, or a new one. */
    requestId: string;
    /** Set by resolveTenant() (X-Service-Tenant), or by requireClient() (the key's tenant). */
    tenant: string;
    /** Set by the interface's authentication middleware (requireAuthor, requireClient). */
    principal?: Principal;
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
  if (principal.credential !== "client-key") throw new Error("this route reads its client but is not behind requireClient");
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
