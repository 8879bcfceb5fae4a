import type {
  Bundle,
  BundleEntry,
  Coding,
  DiagnosticReport,
  Observation,
  Patient,
  Quantity,
  Resource,
} from "fhir/r4.js";
import { UCUM_SYSTEM } from "../../../commands/ingestion/units.ts";
import { definedOnly } from "../../definedOnly.ts";

/*
 * The DiagnosticReports of a FHIR R4 batch or transaction Bundle as the lab reports a JSON push
 * would send (contract D.6). This only translates: validation, matching, mapping to the dictionary
 * and outcomes are the push command's. Each report field remembers the FHIRPath of the element it
 * came from (or would have, when it is missing), for the OperationOutcome of a rejection.
 */

/** The system of the national id (公民身份号码) in Patient.identifier. */
export const NATIONAL_ID_SYSTEM = "urn:oid:2.16.156.10011.1.1";
const LOINC_SYSTEM = "http://loinc.org";

const STATUSES: Record<string, string> = {
  final: "FINAL",
  preliminary: "PRELIMINARY",
  corrected: "CORRECTED",
  amended: "CORRECTED",
  cancelled: "CANCELLED",
};
const CJK = /[\u3400-\u9fff]/;
const FHIR_DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(:\d{2})?(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/;

export interface MappedReport {
  /** Index of the DiagnosticReport's entry in Bundle.entry. */
  entryIndex: number;
  /** Indexes of the entries it refers to: its Patient and its Observations. */
  refersTo: number[];
  report: Record<string, unknown>;
  /** The FHIRPath of the element a report field path (`reportedAt`, `items[2].value`) came from. */
  expressionOf(path: string): string;
}

/**
 * A FHIR dateTime or instant as the local date-time the JSON interface takes: the zone, when sent,
 * is dropped (read as local time, as D.5 reads HL7). Anything else goes through as sent, for the
 * push's validation to refuse with its own words.
 */
export function fhirLocalDateTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = FHIR_DATE_TIME.exec(value);
  if (!parts) return value;
  const [, date, hourMinute = "00:00", seconds = ":00"] = parts;
  return `${date} ${hourMinute}${seconds}`;
}

/**
 * Each DiagnosticReport entry of the Bundle, in order. `loincCodes`: the dictionary's item code of
 * each LOINC code it knows, so that a result coded in LOINC lands on its dictionary item.
 */
export function bundleToLabReports(bundle: Bundle, loincCodes: ReadonlyMap<string, string>): MappedReport[] {
  const entries = bundle.entry ?? [];
  const resolve = referenceResolver(entries);
  const mapped: MappedReport[] = [];
  entries.forEach((entry, entryIndex) => {
    if (entry.resource?.resourceType !== "DiagnosticReport") return;
    mapped.push(diagnosticReport(entry.resource as DiagnosticReport, entryIndex, resolve, loincCodes));
  });
  return mapped;
}

type Resolve = (reference: string | undefined) => { resource: Resource; entryIndex: number } | undefined;

/** References inside a Bundle: by an entry's fullUrl, or `Type/id` of an entry's resource. */
function referenceResolver(entries: BundleEntry[]): Resolve {
  const byReference = new Map<string, { resource: Resource; entryIndex: number }>();
  entries.forEach((entry, entryIndex) => {
    if (!entry.resource) return;
    const found = { resource: entry.resource, entryIndex };
    if (entry.fullUrl) byReference.set(entry.fullUrl, found);
    if (entry.resource.id) byReference.set(`${entry.resource.resourceType}/${entry.resource.id}`, found);
  });
  return (reference) => (reference === undefined ? undefined : byReference.get(reference));
}

function diagnosticReport(
  report: DiagnosticReport,
  entryIndex: number,
  resolve: Resolve,
  loincCodes: ReadonlyMap<string, string>,
): MappedReport {
  const at = `Bundle.entry[${entryIndex}].resource`;
  const subject = resolve(report.subject?.reference);
  const patient = subject?.resource.resourceType === "Patient" ? (subject.resource as Patient) : undefined;
  const patientAt = subject ? `Bundle.entry[${subject.entryIndex}].resource` : `${at}.subject`;
  const nationalIdIndex =
    patient?.identifier?.findIndex((identifier) => identifier.system === NATIONAL_ID_SYSTEM) ?? -1;
  const hospitalId = patient?.identifier?.find((identifier, i) => i !== nationalIdIndex && identifier.value);

  const results = (report.result ?? []).map((reference, i) => ({ i, found: resolve(reference.reference) }));
  const observations = results.map(({ i, found }) => ({
    observation: found?.resource.resourceType === "Observation" ? (found.resource as Observation) : undefined,
    at: found ? `Bundle.entry[${found.entryIndex}].resource` : `${at}.result[${i}]`,
  }));

  const mapped: Record<string, unknown> = definedOnly({
    externalId: report.identifier?.[0]?.value,
    reportNo: report.identifier?.[0]?.value,
    patient: definedOnly({
      idCard: nationalIdIndex >= 0 ? patient!.identifier![nationalIdIndex]!.value : undefined,
      hisPatientId: hospitalId?.value,
      name: personName(patient),
    }),
    panelName: report.code?.text ?? report.code?.coding?.[0]?.display,
    collectedAt: fhirLocalDateTime(report.effectiveDateTime),
    reportedAt: fhirLocalDateTime(report.issued),
    status: report.status === undefined ? undefined : (STATUSES[report.status] ?? report.status),
    items: observations.map(({ observation }) => (observation ? resultItem(observation, loincCodes) : {})),
  });

  const sources: Record<string, string> = {
    externalId: `${at}.identifier[0].value`,
    reportNo: `${at}.identifier[0].value`,
    patient: patientAt,
    "patient.idCard":
      nationalIdIndex >= 0 ? `${patientAt}.identifier[${nationalIdIndex}].value` : `${patientAt}.identifier`,
    "patient.hisPatientId": `${patientAt}.identifier`,
    "patient.name": `${patientAt}.name[0]`,
    panelName: `${at}.code`,
    collectedAt: `${at}.effectiveDateTime`,
    reportedAt: `${at}.issued`,
    status: `${at}.status`,
    items: `${at}.result`,
  };
  const itemSources: Record<string, string> = {
    itemCode: "code.coding",
    itemName: "code",
    value: "value",
    unit: "valueQuantity",
    refLow: "referenceRange[0].low.value",
    refHigh: "referenceRange[0].high.value",
    abnormalFlag: "interpretation[0]",
    resultType: "value",
  };

  return {
    entryIndex,
    refersTo: [subject?.entryIndex, ...results.map(({ found }) => found?.entryIndex)].filter(
      (index): index is number => index !== undefined,
    ),
    report: mapped,
    expressionOf(path) {
      const item = /^items\[(\d+)\](?:\.([^.[\]]+))?/.exec(path);
      if (item) {
        const observation = observations[Number(item[1])];
        if (!observation) return sources.items!;
        if (!observation.observation) return observation.at;
        const field = item[2] === "value" ? valueElement(observation.observation) : itemSources[item[2] ?? ""];
        return field ? `${observation.at}.${field}` : observation.at;
      }
      for (let at = path; at; at = at.replace(/(\.[^.[\]]+|\[\d+\])$/, "")) {
        const source = sources[at];
        if (source) return source;
        if (!/(\.[^.[\]]+|\[\d+\])$/.test(at)) break;
      }
      return "Bundle";
    },
  };
}

/** The Observation's value[x] element as sent (FHIRPath names the choice by its type). */
function valueElement(observation: Observation | undefined): string {
  if (observation?.valueQuantity) return "valueQuantity.value";
  if (observation?.valueString !== undefined) return "valueString";
  if (observation?.valueCodeableConcept) return "valueCodeableConcept";
  return "value";
}

function resultItem(observation: Observation, loincCodes: ReadonlyMap<string, string>): Record<string, unknown> {
  const codings = observation.code?.coding ?? [];
  const loinc = codings.find((coding) => coding.system === LOINC_SYSTEM && coding.code && loincCodes.has(coding.code));
  // A LOINC code the dictionary knows names its item; otherwise the sender's own code (its code map applies).
  const coding: Coding | undefined = loinc ?? codings.find((c) => c.system !== LOINC_SYSTEM && c.code) ?? codings[0];
  const qualitative =
    observation.valueString ??
    observation.valueCodeableConcept?.text ??
    observation.valueCodeableConcept?.coding?.[0]?.display ??
    observation.valueCodeableConcept?.coding?.[0]?.code;
  const range = observation.referenceRange?.[0];
  return definedOnly({
    itemCode: loinc ? loincCodes.get(loinc.code!) : coding?.code,
    itemName: observation.code?.text ?? coding?.display,
    value: observation.valueQuantity ? observation.valueQuantity.value : qualitative,
    unit: sentUnit(observation.valueQuantity),
    refLow: range?.low?.value,
    refHigh: range?.high?.value,
    abnormalFlag: observation.interpretation?.[0]?.coding?.[0]?.code,
    resultType: !observation.valueQuantity && qualitative !== undefined ? "QUALITATIVE" : undefined,
  });
}

/** A UCUM code is what machines agree on; `unit` is a display that may be in any language. */
function sentUnit(quantity: Quantity | undefined): string | undefined {
  if (quantity?.system === UCUM_SYSTEM && quantity.code) return quantity.code;
  return quantity?.unit ?? quantity?.code;
}

/** Patient.name[0]: its text, else family then given, together without a space for Chinese names. */
function personName(patient: Patient | undefined): string | undefined {
  const name = patient?.name?.[0];
  if (!name) return undefined;
  if (name.text) return name.text;
  const parts = [name.family, ...(name.given ?? [])].filter((part): part is string => Boolean(part));
  if (parts.length === 0) return undefined;
  return parts.join(parts.some((part) => CJK.test(part)) ? "" : " ");
}
