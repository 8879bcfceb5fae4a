import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand, type Decider } from "../kit/handleCommand.ts";
import type { NewEvent } from "../../db/eventStore.ts";
import type { z } from "zod";
import { authorDecider, type issuedAuthorToken } from "./authors.ts";
import { clientDecider, type issuedClientKey } from "./clients.ts";
import { authorStreams, clientStreams } from "./events.ts";
import { newCredential } from "./secrets.ts";

/**
 * Credentials must work (or stop working) from the very next request: each change waits for the
 * read model. A new key is answered even when the read model is slow (it is stored, and shown only
 * once); a revocation that is not yet in force says so, for the caller to check again.
 */
async function changeCredential<State, Command, E extends NewEvent>(
  ctx: CommandContext,
  target: { tenant: string; streamId: string },
  decider: Decider<State, Command, E>,
  command: Command,
  what: "grant" | "revocation",
): Promise<void> {
  const { appended } = await handleCommand(ctx.store, target, decider, command, ctx.metadata);
  if (!appended || (await ctx.caughtUp("credentials", appended.last, 30_000))) return;
  if (what === "revocation") throw new CommandError("unavailable", "The revocation is recorded and takes effect within seconds; check again shortly.");
}

export async function createClient(ctx: CommandContext, input: { name: string; tenant: string }): Promise<z.infer<typeof issuedClientKey>> {
  const { id: clientId, secret: key, digest: keyDigest } = newCredential("dhk");
  const command = { type: "register", clientId, name: input.name, keyDigest } as const;
  await changeCredential(ctx, { tenant: input.tenant, streamId: clientStreams.id(clientId) }, clientDecider, command, "grant");
  return { clientId, key };
}

export async function revokeClient(ctx: CommandContext, tenant: string, clientId: string): Promise<void> {
  await changeCredential(ctx, { tenant, streamId: clientStreams.id(clientId) }, clientDecider, { type: "revoke" }, "revocation");
}

export async function setClientCodeMap(ctx: CommandContext, tenant: string, clientId: string, codeMap: Record<string, string>): Promise<void> {
  await changeCredential(ctx, { tenant, streamId: clientStreams.id(clientId) }, clientDecider, { type: "setCodeMap", codeMap }, "grant");
}

export async function createAuthor(ctx: CommandContext, input: { name: string; tenant: string }): Promise<z.infer<typeof issuedAuthorToken>> {
  const { id: authorId, secret: token, digest: tokenDigest } = newCredential("dha");
  const command = { type: "register", authorId, name: input.name, tokenDigest } as const;
  await changeCredential(ctx, { tenant: input.tenant, streamId: authorStreams.id(authorId) }, authorDecider, command, "grant");
  return { authorId, token };
}
