import { commandContextOf } from "../http/requestState.ts";
import Router from "@koa/router";
import type { Context } from "koa";
import { z } from "zod";
import { clientCodeMapInput, registerClientInput } from "../../commands/credentials/clients.ts";
import { registerAuthorInput } from "../../commands/credentials/authors.ts";
import { rotateInput } from "../../commands/credentials/credentialLifecycle.ts";
import {
  createAuthor,
  createClient,
  revokeAuthor,
  revokeClient,
  rotateAuthorToken,
  rotateClientKey,
  setClientCodeMap,
} from "../../commands/credentials/manageCredentials.ts";
import type { SecretHasher } from "../../commands/credentials/secrets.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant, type TenantReader } from "../../db/tenantScope.ts";
import {
  authorById,
  clientById,
  credentialListKey,
  listAuthors,
  listClients,
  readsVersion1,
} from "../../queries/credentials/credentials.ts";
import { answerPage, pageOf, pageQuery, rowsFor } from "../http/paging.ts";
import { listTurn } from "../http/listTurns.ts";
import { projectionsReport } from "../../queries/runtime/projectionStatus.ts";
import { ledgerSummary, verifyLedger } from "../../queries/ledger/ledger.ts";
import { requireAdmin } from "../http/adminAuth.ts";
import { requireRole } from "../http/authorAuth.ts";
import { principalOf } from "../http/requestState.ts";
import {
  administersTenant,
  refuseOtherTenant,
  refuseWardLimitedForClients,
  refuseWiderWards,
} from "./tenantAdministration.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";

/** `GET /api/admin/clients` and `…/authors`: oldest first, a page at a time (contract E.6); other parameters are left alone, as before. */
export const credentialListQuery = z.object(pageQuery);

/** `PUT /api/admin/clients/{clientId}/code-map` answers the map now in force. */
export const clientCodeMapAnswer = clientCodeMapInput.extend({ clientId: z.string() });

/**
 * The administration calls. The projections report and the ledger are the operator's
 * (ADMIN_TOKEN): they span every tenant. The credentials of a tenant are also its own
 * administrators' (role admin, contract E.2), within what src/credentials/tenantAdministration.ts allows.
 */
export function adminRoutes(store: EventStore, adminToken: string | undefined, hasher: SecretHasher): Router {
  const router = new Router({ prefix: "/api/admin" });
  const operator = requireAdmin(adminToken);
  const administrator = requireRole(adminToken, "admin");

  router.get("/projections", operator, async (ctx) => {
    ctx.body = await projectionsReport(store.db);
  });

  router.get("/ledger", operator, async (ctx) => {
    ctx.body = await ledgerSummary(store.db);
  });

  router.get("/ledger/verify", operator, async (ctx) => {
    ctx.body = await verifyLedger(store.db);
  });

  router.get("/clients", administrator, listTurn, async (ctx) => {
    const page = pageOf(parseBody(credentialListQuery, ctx.query), credentialListKey);
    const rows = await listOfTenant(ctx.state.tenant, (reader) => listClients(reader, rowsFor(page)));
    ctx.body = answerPage(ctx, page, rows, (client) => client.key).map(({ key: _, ...client }) => client);
  });

  router.post("/clients", administrator, async (ctx) => {
    const input = parseBody(registerClientInput, ctx.request.body);
    refuseOtherTenant(principalOf(ctx), input.tenant);
    refuseWardLimitedForClients(principalOf(ctx));
    ctx.status = 201;
    ctx.body = await createClient(commandContextOf(ctx, store), hasher, input);
  });

  /** The client to change: one of the caller's tenant, that an administrator of every ward changes. */
  async function existingClient(ctx: Context, clientId: string) {
    const client = await clientById(store.db, clientId);
    if (!client || !administersTenant(principalOf(ctx), client.tenant))
      throw new HttpError(
        404,
        "There is no client with this id; GET /api/admin/clients lists a tenant's clients.",
        {},
        "credential-not-found",
      );
    refuseWardLimitedForClients(principalOf(ctx));
    return client;
  }

  router.delete("/clients/:clientId", administrator, async (ctx) => {
    const client = await existingClient(ctx, ctx.params.clientId!);
    await revokeClient(commandContextOf(ctx, store), client.tenant, client.clientId);
    ctx.status = 204;
  });

  router.put("/clients/:clientId/code-map", administrator, async (ctx) => {
    const client = await existingClient(ctx, ctx.params.clientId!);
    if (client.revoked)
      throw new HttpError(404, "This client was revoked; create a new one.", {}, "credential-revoked");
    const { codeMap } = parseBody(clientCodeMapInput, ctx.request.body);
    await setClientCodeMap(commandContextOf(ctx, store), client.tenant, client.clientId, codeMap);
    ctx.body = { clientId: client.clientId, codeMap } satisfies z.infer<typeof clientCodeMapAnswer>;
  });

  router.post("/clients/:clientId/rotate", administrator, async (ctx) => {
    const client = await existingClient(ctx, ctx.params.clientId!);
    if (client.revoked)
      throw new HttpError(
        404,
        "This client was revoked, and a revoked client gets no new key; create a new client.",
        {},
        "credential-revoked",
      );
    const { overlapHours } = parseBody(rotateInput, ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = await rotateClientKey(
      commandContextOf(ctx, store),
      hasher,
      client.tenant,
      client.clientId,
      overlapHours,
    );
  });

  router.get("/authors", administrator, listTurn, async (ctx) => {
    const page = pageOf(parseBody(credentialListQuery, ctx.query), credentialListKey);
    const rows = await listOfTenant(ctx.state.tenant, (reader) => listAuthors(reader, rowsFor(page)));
    ctx.body = answerPage(ctx, page, rows, (author) => author.key).map(({ key: _, ...author }) => author);
  });

  router.post("/authors", administrator, async (ctx) => {
    const input = parseBody(registerAuthorInput, ctx.request.body);
    refuseOtherTenant(principalOf(ctx), input.tenant);
    refuseWiderWards(principalOf(ctx), input.wards);
    ctx.status = 201;
    ctx.body = await createAuthor(commandContextOf(ctx, store), hasher, input);
  });

  /** The author to change: one of the caller's tenant, within the caller's wards. */
  async function existingAuthor(ctx: Context, authorId: string) {
    const author = await authorById(store.db, authorId);
    if (!author || !administersTenant(principalOf(ctx), author.tenant))
      throw new HttpError(
        404,
        "There is no author with this id; GET /api/admin/authors lists a tenant's authors.",
        {},
        "credential-not-found",
      );
    refuseWiderWards(principalOf(ctx), author.wards);
    return author;
  }

  router.delete("/authors/:authorId", administrator, async (ctx) => {
    const author = await existingAuthor(ctx, ctx.params.authorId!);
    await revokeAuthor(commandContextOf(ctx, store), author.tenant, author.authorId);
    ctx.status = 204;
  });

  router.post("/authors/:authorId/rotate", administrator, async (ctx) => {
    const author = await existingAuthor(ctx, ctx.params.authorId!);
    if (author.revoked)
      throw new HttpError(
        404,
        "This author was revoked, and a revoked author gets no new token; create a new author.",
        {},
        "credential-revoked",
      );
    const { overlapHours } = parseBody(rotateInput, ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = await rotateAuthorToken(
      commandContextOf(ctx, store),
      hasher,
      author.tenant,
      author.authorId,
      overlapHours,
    );
  });

  /** A list read as the tenant; while an upgrade's rebuild is under way, 503 rather than a fault. */
  async function listOfTenant<T>(tenant: string, list: (reader: TenantReader) => Promise<T>): Promise<T> {
    try {
      return await readAsTenant(store.db, tenant, list);
    } catch (error) {
      if (!readsVersion1(error)) throw error;
      throw new HttpError(
        503,
        "The credentials read model is being rebuilt after an upgrade; list again in a few seconds.",
        { "Retry-After": "5" },
        "credentials-rebuilding",
      );
    }
  }
  return router;
}
