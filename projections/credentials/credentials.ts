import { authorStreams, clientStreams, type CredentialEvent } from "../../commands/credentials/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/** Who may call: open-API clients (with their item-code maps), report authors, and the secrets of each. */
export const credentialsProjection: Projection<CredentialEvent> = {
  name: "credentials",
  // 2: expiry, author revocation, and secrets in a table of their own (rotation, contract E.3).
  version: 2,
  handles: [
    "ClientRegistered",
    "ClientRevoked",
    "ClientCodeMapSet",
    "ClientKeyRotated",
    "AuthorRegistered",
    "AuthorRevoked",
    "AuthorTokenRotated",
  ],
  tables: ["clients", "authors", "credential_secrets"],
  ddl: "projections/credentials/credentials.sql",
  async apply(tx: Tx, event: StoredEvent<CredentialEvent>) {
    switch (event.type) {
      case "ClientRegistered": {
        const clientId = clientStreams.key(event.streamId);
        await tx.query(
          "insert into clients (tenant, client_id, name, created_at, expires_at) values ($1, $2, $3, $4, $5)",
          [event.tenant, clientId, event.data.name, event.recordedAt, event.data.expiresAt ?? null],
        );
        await addSecret(tx, event, "client", clientId, event.data.keyDigest);
        break;
      }
      case "ClientRevoked":
        await tx.query("update clients set revoked_at = $2 where client_id = $1", [
          clientStreams.key(event.streamId),
          event.recordedAt,
        ]);
        break;
      case "ClientCodeMapSet":
        await tx.query("update clients set code_map = $2 where client_id = $1", [
          clientStreams.key(event.streamId),
          JSON.stringify(event.data.codeMap),
        ]);
        break;
      case "ClientKeyRotated": {
        const clientId = clientStreams.key(event.streamId);
        await endFormerSecrets(tx, clientId, event.data.formerKeysValidUntil);
        await addSecret(tx, event, "client", clientId, event.data.keyDigest);
        break;
      }
      case "AuthorRegistered": {
        const authorId = authorStreams.key(event.streamId);
        await tx.query(
          "insert into authors (tenant, author_id, name, roles, wards, created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7)",
          [
            event.tenant,
            authorId,
            event.data.name,
            event.data.roles ?? ["author"],
            event.data.wards ?? null,
            event.recordedAt,
            event.data.expiresAt ?? null,
          ],
        );
        await addSecret(tx, event, "author", authorId, event.data.tokenDigest);
        break;
      }
      case "AuthorRevoked":
        await tx.query("update authors set revoked_at = $2 where author_id = $1", [
          authorStreams.key(event.streamId),
          event.recordedAt,
        ]);
        break;
      case "AuthorTokenRotated": {
        const authorId = authorStreams.key(event.streamId);
        await endFormerSecrets(tx, authorId, event.data.formerTokensValidUntil);
        await addSecret(tx, event, "author", authorId, event.data.tokenDigest);
        break;
      }
    }
  },
};

async function addSecret(
  tx: Tx,
  event: StoredEvent<CredentialEvent>,
  kind: "client" | "author",
  credentialId: string,
  digest: string,
): Promise<void> {
  await tx.query(
    "insert into credential_secrets (tenant, digest, kind, credential_id, issued_at) values ($1, $2, $3, $4, $5)",
    [event.tenant, digest, kind, credentialId, event.recordedAt],
  );
}

/** A rotation never lengthens a former secret's life: one already ending sooner keeps its end. */
async function endFormerSecrets(tx: Tx, credentialId: string, validUntil: string): Promise<void> {
  await tx.query(
    "update credential_secrets set valid_until = least(valid_until, $2::timestamptz) where credential_id = $1",
    [credentialId, validUntil],
  );
}
