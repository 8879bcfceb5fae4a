import { createItemMapper } from "../../commands/ingestion/itemMapping.ts";
import type { IngestionDeps } from "../../commands/ingestion/pushReports.ts";
import type { EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { registeredPatients } from "../patients/registeredPatients.ts";
import { senderMappings } from "../../commands/dictionary/events.ts";
import type { Db } from "../../db/pool.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { withWardScope } from "../../db/wardScope.ts";
import { mappingsInForce } from "../../queries/dictionary/itemMappings.ts";

/** What the push command needs: the store, the dictionary and its item mapper, and the registered patients to match against. */
export function ingestionDeps(store: EventStore, dictionary: Dictionary): IngestionDeps {
  return {
    store,
    dictionary,
    mapper: createItemMapper(dictionary),
    patientsByIdCards: registeredPatients(store.db),
    mappingsOf: itemMappingsOf(store.db),
  };
}

/** The tenant's item mappings in force for a sender, read afresh for each push that needs them (a new mapping counts at once). */
function itemMappingsOf(db: Db): IngestionDeps["mappingsOf"] {
  return async (tenant, clientName) =>
    senderMappings(await withWardScope(null, () => readAsTenant(db, tenant, mappingsInForce)), clientName);
}
