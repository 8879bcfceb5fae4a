import { waitForProjection } from "../../projections/waitForProjection.ts";
import type { CommandContext } from "../commandContext.ts";
import { handleCommand } from "../handleCommand.ts";
import { authorDecider, authorStream } from "./authors.ts";
import { clientDecider, clientStream } from "./clients.ts";
import { newId, newSecret, secretDigest } from "./secrets.ts";

// Credentials must work (or stop working) from the very next request: wait for the read model.
async function visible(ctx: CommandContext, appended: { last: { transactionId: string; position: number } } | null): Promise<void> {
  if (appended && !(await waitForProjection(ctx.store.db, "credentials", appended.last))) {
    throw new Error("the credentials read model did not catch up in time");
  }
}

export async function createClient(ctx: CommandContext, input: { name: string; tenant: string }): Promise<{ clientId: string; key: string }> {
  const clientId = newId();
  const key = newSecret("dhk");
  const { appended } = await handleCommand(
    ctx.store,
    { tenant: input.tenant, streamId: clientStream(clientId) },
    clientDecider,
    { type: "register", clientId, name: input.name, keyDigest: secretDigest(key) },
    ctx.metadata,
  );
  await visible(ctx, appended);
  return { clientId, key };
}

export async function revokeClient(ctx: CommandContext, tenant: string, clientId: string): Promise<void> {
  const { appended } = await handleCommand(ctx.store, { tenant, streamId: clientStream(clientId) }, clientDecider, { type: "revoke" }, ctx.metadata);
  await visible(ctx, appended);
}

export async function setClientCodeMap(ctx: CommandContext, tenant: string, clientId: string, codeMap: Record<string, string>): Promise<void> {
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId: clientStream(clientId) },
    clientDecider,
    { type: "setCodeMap", codeMap },
    ctx.metadata,
  );
  await visible(ctx, appended);
}

export async function createAuthor(ctx: CommandContext, input: { name: string; tenant: string }): Promise<{ authorId: string; token: string }> {
  const authorId = newId();
  const token = newSecret("dha");
  const { appended } = await handleCommand(
    ctx.store,
    { tenant: input.tenant, streamId: authorStream(authorId) },
    authorDecider,
    { type: "register", authorId, name: input.name, tokenDigest: secretDigest(token) },
    ctx.metadata,
  );
  await visible(ctx, appended);
  return { authorId, token };
}
