import type { z } from "zod";
import { registerAuthorInput } from "../../../commands/credentials/authors.ts";
import { registerClientInput } from "../../../commands/credentials/clients.ts";
import { rotateInput } from "../../../commands/credentials/credentialLifecycle.ts";
import {
  createAuthor,
  createClient,
  revokeAuthor,
  revokeClient,
  rotateAuthorToken,
  rotateClientKey,
} from "../../../commands/credentials/manageCredentials.ts";
import type { Db } from "../../../db/pool.ts";
import { readAsTenant, TENANT_PATTERN, type TenantReader } from "../../../db/tenantScope.ts";
import { authorById, clientById, listAuthors, listClients } from "../../../queries/credentials/credentials.ts";
import { loadIdentifierHasher } from "../../secrets/identifierKey.ts";
import { withDatabase } from "./database.ts";
import { withCommandContext } from "./inProcessProjections.ts";

/* `keys …` (open-API keys of sending systems) and `authors …` (authoring credentials). */

export function createKey(options: { tenant: string; name: string; expiresInDays?: string }): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const input = checked(registerClientInput, { ...options, expiresInDays: optionalNumber(options.expiresInDays) });
      const created = await createClient(ctx, await credentialHasher(db), input);
      console.log(JSON.stringify(created, null, 2));
      console.error("Store the key now: it is shown only this once.");
    }),
  );
}

export function listKeys(options: { tenant: string }): Promise<void> {
  return withDatabase((url) => listCredentials(url, options.tenant, (reader) => listClients(reader)));
}

export function revokeKey(clientId: string): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const client = await clientById(db, clientId);
      if (!client) throw new Error(`there is no client ${clientId}; check the id printed by \`keys create\``);
      const who = `client ${client.clientId} (${client.name}, tenant ${client.tenant})`;
      if (client.revoked) return console.log(`${who} was already revoked.`);
      await revokeClient(ctx, client.tenant, client.clientId);
      console.log(`Revoked ${who}: its key no longer works.`);
    }),
  );
}

export function rotateKey(clientId: string, options: { overlapHours: string }): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const client = await clientById(db, clientId);
      if (!client || client.revoked)
        throw new Error(
          `there is no active client ${clientId}; a revoked client gets no new key (create one with \`keys create\`)`,
        );
      const { overlapHours } = checked(rotateInput, { overlapHours: optionalNumber(options.overlapHours) });
      const rotated = await rotateClientKey(
        ctx,
        await credentialHasher(db),
        client.tenant,
        client.clientId,
        overlapHours,
      );
      console.log(JSON.stringify(rotated, null, 2));
      console.error(
        `Store the key now: it is shown only this once. The former key works ${overlapHours === 0 ? "no more" : `${overlapHours} hours more`}.`,
      );
    }),
  );
}

export function createAuthorToken(options: {
  tenant: string;
  name: string;
  expiresInDays?: string;
  roles?: string;
  wards?: string;
}): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const input = checked(registerAuthorInput, {
        ...options,
        expiresInDays: optionalNumber(options.expiresInDays),
        roles: listOption(options.roles),
        wards: listOption(options.wards),
      });
      const created = await createAuthor(ctx, await credentialHasher(db), input);
      console.log(JSON.stringify(created, null, 2));
      console.error("Store the token now: it is shown only this once.");
    }),
  );
}

export function listAuthorTokens(options: { tenant: string }): Promise<void> {
  return withDatabase((url) => listCredentials(url, options.tenant, (reader) => listAuthors(reader)));
}

export function revokeAuthorTokens(authorId: string): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const author = await authorById(db, authorId);
      if (!author) throw new Error(`there is no author ${authorId}; check the id printed by \`authors create\``);
      const who = `author ${author.authorId} (${author.name}, tenant ${author.tenant})`;
      if (author.revoked) return console.log(`${who} was already revoked.`);
      await revokeAuthor(ctx, author.tenant, author.authorId);
      console.log(`Revoked ${who}: their tokens no longer work.`);
    }),
  );
}

export function rotateAuthor(authorId: string, options: { overlapHours: string }): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const author = await authorById(db, authorId);
      if (!author || author.revoked)
        throw new Error(
          `there is no active author ${authorId}; a revoked author gets no new token (create one with \`authors create\`)`,
        );
      const { overlapHours } = checked(rotateInput, { overlapHours: optionalNumber(options.overlapHours) });
      const rotated = await rotateAuthorToken(
        ctx,
        await credentialHasher(db),
        author.tenant,
        author.authorId,
        overlapHours,
      );
      console.log(JSON.stringify(rotated, null, 2));
      console.error(
        `Store the token now: it is shown only this once. The former token works ${overlapHours === 0 ? "no more" : `${overlapHours} hours more`}.`,
      );
    }),
  );
}

/** An option's text as the number a schema checks; text that is no number stays text, for the schema to refuse. */
function optionalNumber(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** `a, b,c` → ["a", "b", "c"]; left out stays left out. */
function listOption(text: string | undefined): string[] | undefined {
  return text === undefined
    ? undefined
    : text
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
}

/**
 * Prints a tenant's credentials as the admin lists answer them (E.3). The read model is built
 * first where it is new (a database no service has run on yet), as for the writing commands.
 */
async function listCredentials(
  url: string,
  tenant: string,
  list: (reader: TenantReader) => Promise<Array<{ key: unknown }>>,
): Promise<void> {
  if (!TENANT_PATTERN.test(tenant)) throw new Error("--tenant: 1 to 64 letters, digits, '_' or '-'");
  await withCommandContext(url, async (_ctx, db) => {
    // Every credential of the tenant (the API pages them); the paging key is the API's business.
    const listed = await readAsTenant(db, tenant, (reader) => list(reader));
    console.log(
      JSON.stringify(
        listed.map(({ key: _, ...entry }) => entry),
        null,
        2,
      ),
    );
  });
}

/** The deployment's hasher, for the digests of new keys and tokens (as the service loads it). */
function credentialHasher(db: Db) {
  return loadIdentifierHasher(db, process.env.ID_HASH_KEY);
}

function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  const option = (path: PropertyKey[]) =>
    `--${path.join(".").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((issue) => `${option(issue.path)}: ${issue.message}`).join("; "));
  return parsed.data;
}
