import { createItemMapper } from "../../commands/ingestion/itemMapping.ts";
import type { IngestionDeps } from "../../commands/ingestion/pushReports.ts";
import type { EventStore } from "../../db/eventStore.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { registeredPatients } from "../patients/registeredPatients.ts";

/** What the push command needs: the store, the dictionary and its item mapper, and the registered patients to match against. */
export function ingestionDeps(store: EventStore, dictionary: Dictionary): IngestionDeps {
  return {
    store,
    dictionary,
    mapper: createItemMapper(dictionary),
    patientsByIdCards: registeredPatients(store.db),
  };
}
