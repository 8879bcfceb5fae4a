import type { Coding, DiagnosticReport, Observation, Patient, Quantity } from "fhir/r4.js";
import { UCUM_SYSTEM, ucumCodeOf } from "../../../commands/ingestion/units.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import type { ObservationRow, ReportRow } from "../../../queries/ingestion/fhirObservations.ts";
import { parseLocalDateTime } from "../../../db/localDateTime.ts";
import { NATIONAL_ID_SYSTEM } from "./bundleToLabReports.ts";
import { fhirId } from "./fhirIds.ts";

/*
 * What the service stores, as the R4 resources it serves (contract D.6). A result item is an
 * Observation: the standard code first (LOINC where the dictionary has one, then our item code),
 * the value converted to the item's standard unit with its UCUM code, the value as sent kept in an
 * extension when the two differ.
 */

/** Our dictionary's item codes as a code system. */
export const ITEM_SYSTEM = "urn:dialysis-hub:item";
/** The value and unit as the laboratory sent them. */
export const SENT_VALUE_EXTENSION = "urn:dialysis-hub:fhir:sent-value";
const STATUSES: Record<string, Observation["status"] & DiagnosticReport["status"]> = {
  FINAL: "final",
  PRELIMINARY: "preliminary",
  CORRECTED: "corrected",
  CANCELLED: "cancelled",
};

/** The dictionary's derived items (contract F.2), in its order: a derived value's place among a day's (searchObservations). */
export function derivedCodes(dictionary: Dictionary): string[] {
  return dictionary.items.filter((item) => item.formula).map((item) => item.code);
}

export function observationResource(row: ObservationRow, dictionary: Dictionary): Observation {
  const item = row.std_code ? dictionary.items.find((candidate) => candidate.code === row.std_code) : undefined;
  const display = row.std_name ?? (row.derived ? item?.name : undefined);
  const coding: Coding[] = [
    ...(item?.loinc ? [{ system: "http://loinc.org", code: item.loinc, display: item.nameEn }] : []),
    ...(row.std_code ? [{ system: ITEM_SYSTEM, code: row.std_code, display }] : []),
  ];
  if (row.derived) return derivedObservation(row, row.derived, coding, display);
  const converted = row.std_value !== null && row.std_unit !== null;
  const sentDiffers =
    converted && row.value_num !== null && (row.value_num !== row.std_value || (row.unit ?? "") !== row.std_unit);
  return {
    resourceType: "Observation",
    id: `${fhirId(row.external_id)}-${row.item_index}`,
    ...(sentDiffers
      ? { extension: [{ url: SENT_VALUE_EXTENSION, valueQuantity: quantity(row.value_num!, row.unit) }] }
      : {}),
    status: STATUSES[row.status ?? "FINAL"] ?? "final",
    category: [
      { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory" }] },
    ],
    code: { ...(coding.length ? { coding } : {}), text: row.std_name ?? row.item_name ?? row.item_code ?? "result" },
    ...(row.patient_ref ? { subject: { reference: `Patient/${fhirId(row.patient_ref)}` } } : {}),
    effectiveDateTime: withServiceZone(row.effective_at),
    issued: withServiceZone(row.reported_at!),
    ...value(row, converted),
    ...(row.ref_low !== null || row.ref_high !== null
      ? {
          referenceRange: [
            {
              ...(row.ref_low !== null ? { low: { value: row.ref_low } } : {}),
              ...(row.ref_high !== null ? { high: { value: row.ref_high } } : {}),
            },
          ],
        }
      : {}),
    ...(row.abnormal_flag
      ? {
          interpretation: [
            {
              coding: [
                {
                  system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
                  code: row.abnormal_flag,
                },
              ],
            },
          ],
        }
      : {}),
  };
}

/**
 * A value the service derived (contract F.2): `derivedFrom` the Observations of the results it
 * read, the formula (name, version, expression) as its method. Its id is the first input report's
 * and its item code's, one per patient, day and item.
 */
function derivedObservation(
  row: ObservationRow,
  derived: NonNullable<ObservationRow["derived"]>,
  coding: Coding[],
  display: string | undefined,
): Observation {
  const firstInput = derived.inputs[0]!;
  return {
    resourceType: "Observation",
    id: `${fhirId(firstInput.externalId)}-d-${fhirId(row.std_code!)}`,
    status: "final",
    category: [
      { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory" }] },
    ],
    code: { coding, text: display ?? row.std_code! },
    ...(row.patient_ref ? { subject: { reference: `Patient/${fhirId(row.patient_ref)}` } } : {}),
    effectiveDateTime: withServiceZone(row.effective_at),
    valueQuantity: quantity(row.std_value!, row.std_unit),
    method: { text: `${derived.name} v${derived.version}: ${derived.expression}` },
    derivedFrom: derived.inputs.map((input) => ({
      reference: `Observation/${fhirId(input.externalId)}-${input.itemIndex}`,
      display: input.stdCode,
    })),
  };
}

/** A local `yyyy-MM-ddTHH:mm:ss` with the offset of the service's time zone at that moment (FHIR times carry their zone). */
export function withServiceZone(local: string): string {
  const instant = parseLocalDateTime(local.replace("T", " ")) ?? new Date(`${local}Z`);
  const offsetMinutes = -instant.getTimezoneOffset();
  const sign = offsetMinutes < 0 ? "-" : "+";
  const pad = (n: number) => String(Math.floor(n)).padStart(2, "0");
  return `${local}${sign}${pad(Math.abs(offsetMinutes) / 60)}:${pad(Math.abs(offsetMinutes) % 60)}`;
}

function value(row: ObservationRow, converted: boolean): Partial<Observation> {
  if (converted) return { valueQuantity: quantity(row.std_value!, row.std_unit) };
  if (row.value_num !== null) return { valueQuantity: quantity(row.value_num, row.unit) };
  if (row.value_text !== null) return { valueString: row.value_text };
  return {};
}

/** A value with its unit as written, and the unit's UCUM code when it has one ("10^9/L" is coded 10*9/L). */
function quantity(value: number, unit: string | null): Quantity {
  if (!unit) return { value };
  const code = ucumCodeOf(unit);
  return { value, unit, ...(code !== null ? { system: UCUM_SYSTEM, code } : {}) };
}

/** A stored lab report as an R4 DiagnosticReport, its results contained (Observations are not read one by one). */
export function diagnosticReportResource(report: ReportRow, dictionary: Dictionary): DiagnosticReport {
  const contained = report.results.map((row, i) => ({ ...observationResource(row, dictionary), id: `r${i}` }));
  return {
    resourceType: "DiagnosticReport",
    id: fhirId(report.external_id),
    contained,
    identifier: [{ value: report.external_id }],
    status: STATUSES[report.status ?? "FINAL"] ?? "final",
    category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0074", code: "LAB" }] }],
    code: { text: report.panel_name ?? "laboratory report" },
    ...(report.patient_ref ? { subject: { reference: `Patient/${fhirId(report.patient_ref)}` } } : {}),
    ...(report.collected_at ? { effectiveDateTime: withServiceZone(report.collected_at) } : {}),
    issued: withServiceZone(report.reported_at),
    result: contained.map(({ id }) => ({ reference: `#${id}` })),
  };
}

/** A registered patient as an R4 Patient. */
export function patientResource(patient: {
  patient_ref: string;
  name: string;
  id_card: string;
  his_patient_id: string | null;
  active: boolean;
}): Patient {
  return {
    resourceType: "Patient",
    id: fhirId(patient.patient_ref),
    identifier: [
      { system: NATIONAL_ID_SYSTEM, value: patient.id_card },
      ...(patient.his_patient_id ? [{ type: { text: "hospital patient id" }, value: patient.his_patient_id }] : []),
    ],
    active: patient.active,
    name: [{ text: patient.name }],
  };
}
