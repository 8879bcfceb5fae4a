import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand, type Decider } from "../kit/handleCommand.ts";
import type { NewEvent } from "../../db/eventStore.ts";
import type { z } from "zod";
import { authorDecider, type issuedAuthorToken } from "./authors.ts";
import { clientDecider, type issuedClientKey } from "./clients.ts";
import { expiryAfter, overlapEnd } from "./credentialLifecycle.ts";
import { authorStreams, clientStreams } from "./events.ts";
import { newCredential, newSecret, type SecretHasher } from "./secrets.ts";

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
  if (what === "revocation")
    throw new CommandError(
      "unavailable",
      "The revocation is recorded and takes effect within seconds; check again shortly.",
    );
}

export interface NewCredentialInput {
  name: string;
  tenant: string;
  expiresInDays?: number | undefined;
}

/** An author token's besides: its roles and wards (contract E.2). */
export interface NewAuthorInput extends NewCredentialInput {
  roles?: string[] | undefined;
  wards?: string[] | undefined;
}

export async function createClient(
  ctx: CommandContext,
  hasher: SecretHasher,
  input: NewCredentialInput,
): Promise<z.infer<typeof issuedClientKey>> {
  const { id: clientId, secret: key, digest: keyDigest } = newCredential("dhk", hasher);
  const command = {
    type: "register",
    clientId,
    name: input.name,
    keyDigest,
    expiresAt: expiryAfter(input.expiresInDays, new Date()),
  } as const;
  await changeCredential(
    ctx,
    { tenant: input.tenant, streamId: clientStreams.id(clientId) },
    clientDecider,
    command,
    "grant",
  );
  return { clientId, key };
}

export async function revokeClient(ctx: CommandContext, tenant: string, clientId: string): Promise<void> {
  await changeCredential(
    ctx,
    { tenant, streamId: clientStreams.id(clientId) },
    clientDecider,
    { type: "revoke" },
    "revocation",
  );
}

/** A new key for the client; its former keys work `overlapHours` more. Answered once the new key works. */
export async function rotateClientKey(
  ctx: CommandContext,
  hasher: SecretHasher,
  tenant: string,
  clientId: string,
  overlapHours: number,
): Promise<z.infer<typeof issuedClientKey>> {
  const { secret: key, digest: keyDigest } = newSecret("dhk", hasher);
  const now = new Date();
  const command = { type: "rotate", keyDigest, now, formerKeysValidUntil: overlapEnd(overlapHours, now) } as const;
  await changeCredential(ctx, { tenant, streamId: clientStreams.id(clientId) }, clientDecider, command, "grant");
  return { clientId, key };
}

export async function setClientCodeMap(
  ctx: CommandContext,
  tenant: string,
  clientId: string,
  codeMap: Record<string, string>,
): Promise<void> {
  await changeCredential(
    ctx,
    { tenant, streamId: clientStreams.id(clientId) },
    clientDecider,
    { type: "setCodeMap", codeMap },
    "grant",
  );
}

export async function createAuthor(
  ctx: CommandContext,
  hasher: SecretHasher,
  input: NewAuthorInput,
): Promise<z.infer<typeof issuedAuthorToken>> {
  const { id: authorId, secret: token, digest: tokenDigest } = newCredential("dha", hasher);
  const command = {
    type: "register",
    authorId,
    name: input.name,
    tokenDigest,
    expiresAt: expiryAfter(input.expiresInDays, new Date()),
    roles: input.roles,
    wards: input.wards,
  } as const;
  await changeCredential(
    ctx,
    { tenant: input.tenant, streamId: authorStreams.id(authorId) },
    authorDecider,
    command,
    "grant",
  );
  return { authorId, token };
}

export async function revokeAuthor(ctx: CommandContext, tenant: string, authorId: string): Promise<void> {
  await changeCredential(
    ctx,
    { tenant, streamId: authorStreams.id(authorId) },
    authorDecider,
    { type: "revoke" },
    "revocation",
  );
}

/** A new token for the author; their former tokens work `overlapHours` more. Answered once the new token works. */
export async function rotateAuthorToken(
  ctx: CommandContext,
  hasher: SecretHasher,
  tenant: string,
  authorId: string,
  overlapHours: number,
): Promise<z.infer<typeof issuedAuthorToken>> {
  const { secret: token, digest: tokenDigest } = newSecret("dha", hasher);
  const now = new Date();
  const command = { type: "rotate", tokenDigest, now, formerTokensValidUntil: overlapEnd(overlapHours, now) } as const;
  await changeCredential(ctx, { tenant, streamId: authorStreams.id(authorId) }, authorDecider, command, "grant");
  return { authorId, token };
}
