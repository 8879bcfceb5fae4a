import { authorStreams, clientStreams, type CredentialEvent } from "../../commands/credentials/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";

/** Who may call: open-API clients (with their item-code maps) and report authors. */
export const credentialsProjection: Projection<CredentialEvent> = {
  name: "credentials",
  version: 1,
  handles: ["ClientRegistered", "ClientRevoked", "ClientCodeMapSet", "AuthorRegistered"],
  tables: ["clients", "authors"],
  ddl: "projections/credentials/credentials.sql",
  async apply(tx: Tx, event: StoredEvent<CredentialEvent>) {
    switch (event.type) {
      case "ClientRegistered":
        await tx.query("insert into clients (tenant, client_id, name, key_digest, created_at) values ($1, $2, $3, $4, $5)", [
          event.tenant,
          clientStreams.key(event.streamId),
          event.data.name,
          event.data.keyDigest,
          event.recordedAt,
        ]);
        break;
      case "ClientRevoked":
        await tx.query("update clients set revoked_at = $2 where client_id = $1", [clientStreams.key(event.streamId), event.recordedAt]);
        break;
      case "ClientCodeMapSet":
        await tx.query("update clients set code_map = $2 where client_id = $1", [clientStreams.key(event.streamId), JSON.stringify(event.data.codeMap)]);
        break;
      case "AuthorRegistered":
        await tx.query("insert into authors (tenant, author_id, name, token_digest, created_at) values ($1, $2, $3, $4, $5)", [
          event.tenant,
          authorStreams.key(event.streamId),
          event.data.name,
          event.data.tokenDigest,
          event.recordedAt,
        ]);
        break;
    }
  },
};
