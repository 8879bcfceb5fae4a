import { commandContextOf } from "../http/requestState.ts";
import Router from "@koa/router";
import { z } from "zod";
import { clientCodeMapInput, registerClientInput } from "../../commands/credentials/clients.ts";
import { registerAuthorInput } from "../../commands/credentials/authors.ts";
import { createAuthor, createClient, revokeClient, setClientCodeMap } from "../../commands/credentials/manageCredentials.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { clientById } from "../../queries/credentials/credentials.ts";
import { projectionsReport } from "../../queries/runtime/projectionStatus.ts";
import { ledgerSummary, verifyLedger } from "../../queries/ledger/ledger.ts";
import { requireAdmin } from "../http/adminAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { parseBody } from "../http/validate.ts";

/** `PUT /api/admin/clients/{clientId}/code-map` answers the map now in force. */
export const clientCodeMapAnswer = clientCodeMapInput.extend({ clientId: z.string() });

/** The operator's calls: credentials and the projections report. Cross-tenant by nature. */
export function adminRoutes(store: EventStore, adminToken: string | undefined): Router {
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

  router.post("/clients", async (ctx) => {
    const input = parseBody(registerClientInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = await createClient(commandContextOf(ctx, store), input);
  });

  async function existingClient(clientId: string) {
    const client = await clientById(store.db, clientId);
    if (!client) throw new HttpError(404, "There is no client with this id; create one with POST /api/admin/clients.");
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

  router.post("/authors", async (ctx) => {
    const input = parseBody(registerAuthorInput, ctx.request.body);
    ctx.status = 201;
    ctx.body = await createAuthor(commandContextOf(ctx, store), input);
  });
  return router;
}
