import { commandContextOf } from "../http/requestState.ts";
import Router from "@koa/router";
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
import { authorById, clientById, listAuthors, listClients, readsVersion1 } from "../../queries/credentials/credentials.ts";
import { projectionsReport } from "../../queries/runtime/projectionStatus.ts";
import { ledgerSummary, verifyLedger } from "../../queries/ledger/ledger.ts";
import { requireAdmin } from "../http/adminAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";

/** `PUT /api/admin/clients/{clientId}/code-map` answers the map now in force. */
export const clientCodeMapAnswer = clientCodeMapInput.extend({ clientId: z.string() });

/** The operator's calls: credentials and the projections report. Cross-tenant by nature, but for the lists of one tenant's credentials. */
export function adminRoutes(store: EventStore, adminToken: string | undefined, hasher: SecretHasher): Router {
  const router = new Router({ prefix: "/api/admin" });
  router.use(requireAdmin(adminToken));

  router.get("/projections", async (ctx) => {
    ctx.body = await projectionsReport(store.db);
  });

  router.get("/ledger", async (ctx) => {
    ctx.body = await ledgerSummary(store.db);
  });

  router.get("/ledger/verify", async (ctx) => {
    ctx.body = await verifyLedger(store.db);
  });

  router.get("/clients", async (ctx) => {
    ctx.body = await listOfTenant(ctx.state.tenant, listClients);
  });

  router.post("/clients", async (ctx) => {
    const input = parseBody(registerClientInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = await createClient(commandContextOf(ctx, store), hasher, input);
  });

  async function existingClient(clientId: string) {
    const client = await clientById(store.db, clientId);
    if (!client) throw new HttpError(404, "There is no client with this id; GET /api/admin/clients lists a tenant's clients.");
    return client;
  }

  router.delete("/clients/:clientId", async (ctx) => {
    const client = await existingClient(ctx.params.clientId!);
    await revokeClient(commandContextOf(ctx, store), client.tenant, client.clientId);
    ctx.status = 204;
  });

  router.put("/clients/:clientId/code-map", async (ctx) => {
    const client = await existingClient(ctx.params.clientId!);
    if (client.revoked) throw new HttpError(404, "This client was revoked; create a new one.");
    const { codeMap } = parseBody(clientCodeMapInput, ctx.request.body);
    await setClientCodeMap(commandContextOf(ctx, store), client.tenant, client.clientId, codeMap);
    ctx.body = { clientId: client.clientId, codeMap } satisfies z.infer<typeof clientCodeMapAnswer>;
  });

  router.post("/clients/:clientId/rotate", async (ctx) => {
    const client = await existingClient(ctx.params.clientId!);
    if (client.revoked) throw new HttpError(404, "This client was revoked, and a revoked client gets no new key; create a new client.");
    const { overlapHours } = parseBody(rotateInput, ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = await rotateClientKey(commandContextOf(ctx, store), hasher, client.tenant, client.clientId, overlapHours);
  });

  router.get("/authors", async (ctx) => {
    ctx.body = await listOfTenant(ctx.state.tenant, listAuthors);
  });

  router.post("/authors", async (ctx) => {
    const input = parseBody(registerAuthorInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = await createAuthor(commandContextOf(ctx, store), hasher, input);
  });

  async function existingAuthor(authorId: string) {
    const author = await authorById(store.db, authorId);
    if (!author) throw new HttpError(404, "There is no author with this id; GET /api/admin/authors lists a tenant's authors.");
    return author;
  }

  router.delete("/authors/:authorId", async (ctx) => {
    const author = await existingAuthor(ctx.params.authorId!);
    await revokeAuthor(commandContextOf(ctx, store), author.tenant, author.authorId);
    ctx.status = 204;
  });

  router.post("/authors/:authorId/rotate", async (ctx) => {
    const author = await existingAuthor(ctx.params.authorId!);
    if (author.revoked) throw new HttpError(404, "This author was revoked, and a revoked author gets no new token; create a new author.");
    const { overlapHours } = parseBody(rotateInput, ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = await rotateAuthorToken(commandContextOf(ctx, store), hasher, author.tenant, author.authorId, overlapHours);
  });

  /** A list read as the tenant; while an upgrade's rebuild is under way, 503 rather than a fault. */
  async function listOfTenant<T>(tenant: string, list: (reader: TenantReader) => Promise<T>): Promise<T> {
    try {
      return await readAsTenant(store.db, tenant, list);
    } catch (error) {
      if (!readsVersion1(error)) throw error;
      throw new HttpError(503, "The credentials read model is being rebuilt after an upgrade; list again in a few seconds.", { "Retry-After": "5" });
    }
  }
  return router;
}
