import type { DictionaryItem, ExamType } from "../../db/seed/defaultDictionary.ts";
import type { Event } from "../kit/events.ts";

/*
 * The dictionary context's published language: one stream of the shared tenant, `dictionary`,
 * saying which dictionary was in force from when.
 */

/** Reference data shared by every tenant lives under this tenant id, which no real tenant can have. */
export const SHARED_TENANT = "*";

/** The one stream of dictionary releases (of SHARED_TENANT): a stream of its kind alone, so its id has no key. */
export const DICTIONARY_STREAM = "dictionary";

/**
 * What every release's items hold. Releases are recorded whole (English names and unit
 * conversions included); those recorded before conversions were kept hold these fields only.
 */
export type ReleasedItem = Pick<DictionaryItem, "code" | "name" | "category" | "valueType" | "unit" | "loinc" | "aliases" | "core" | "timing"> & Partial<DictionaryItem>;

export type DictionaryReleased = Event<"DictionaryReleased", { version: string; items: ReleasedItem[]; examTypes: Array<Pick<ExamType, "code" | "name"> & Partial<ExamType>> }>;

/** The events of the dictionary stream. */
export type DictionaryEvent = DictionaryReleased;
