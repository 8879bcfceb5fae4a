import type { Er7Message, Er7Segment } from "./er7Reader.ts";
import { definedOnly } from "../../definedOnly.ts";

/*
 * One ORU^R01 message as the lab report a JSON push would send (contract D.5). This only
 * translates: validation, matching, mapping to the dictionary and outcomes are the push
 * command's, so a report is judged the same whichever way it came. Each field of the report
 * remembers where in the message it came from, so that a rejection can name the HL7 field.
 */

/** Where in a message a value came from: OBX-5 of the 3rd OBX is { segment: "OBX", sequence: 3, field: 5 }. */
export interface Hl7Location {
  segment: string;
  sequence: number;
  field: number;
  component?: number;
}

export interface MappedOru {
  /** MSH-10, echoed in the ACK's MSA-2. */
  controlId: string;
  report: Record<string, unknown>;
  /** The HL7 location a report field path (`reportedAt`, `items[2].value`) came from. */
  sourceOf(path: string): Hl7Location | undefined;
}

/** `OBR-22`, `OBR-4.2`, `OBX-5 of OBX 3`: as an integration engineer reads it. */
export function locationText({ segment, sequence, field, component }: Hl7Location): string {
  const at = `${segment}-${field}${component ? `.${component}` : ""}`;
  return sequence > 1 || segment === "OBX" ? `${at} of ${segment} ${sequence}` : at;
}

/** `OBR-22`, `OBX-5.1`: a location as written in the mapping (sequence 1 unless given). */
function loc(spec: string, sequence = 1): Hl7Location {
  const [, segment, field, component] = /^([A-Z0-9]{3})-(\d+)(?:\.(\d+))?$/.exec(spec)!;
  return { segment: segment!, sequence, field: Number(field), ...(component ? { component: Number(component) } : {}) };
}

const STATUSES: Record<string, string> = { F: "FINAL", P: "PRELIMINARY", C: "CORRECTED", X: "CANCELLED" };
const QUALITATIVE_TYPES = new Set(["ST", "CE", "CWE"]);
const HL7_TIME = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:\.\d+)?)?)?)?(?:[+-]\d{4})?$/;
const CJK = /[\u3400-\u9fff]/;

/**
 * An HL7 timestamp as the local date-time the JSON interface takes (`yyyy-MM-dd HH:mm:ss`): the
 * zone, when sent, is dropped (D.5: read as local time). Anything else goes through as sent, for
 * the push's validation to refuse with its own words.
 */
export function hl7LocalDateTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = HL7_TIME.exec(value);
  if (!parts) return value;
  const [, y, mo, d, h = "00", mi = "00", s = "00"] = parts;
  return `${y}-${mo}-${d} ${h}:${mi}:${s}`;
}

/** OBX-7 as bounds: `3.5-5.5`, `<5` (upper only), `>1` (lower only); unreadable ranges give none. */
export function referenceRange(range: string | undefined): { refLow?: number; refHigh?: number } {
  if (!range) return {};
  const number = (s: string) => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : undefined);
  const between = /^\s*(-?[\d.]+)\s*[-~]\s*(-?[\d.]+)\s*$/.exec(range);
  if (between) return { refLow: number(between[1]!), refHigh: number(between[2]!) };
  const bound = /^\s*([<>]=?)\s*(-?[\d.]+)\s*$/.exec(range);
  if (bound) return bound[1]!.startsWith("<") ? { refHigh: number(bound[2]!) } : { refLow: number(bound[2]!) };
  return {};
}

/** PID-5: family then given name, together without a space for Chinese names. */
function personName(pid: Er7Segment | undefined): string | undefined {
  const parts = [pid?.text(5, 1), pid?.text(5, 2)].filter((part): part is string => part !== undefined);
  if (parts.length === 0) return undefined;
  return parts.join(parts.some((part) => CJK.test(part)) ? "" : " ");
}

/** PID-3's repetitions: each identifier (component 1) and its type (component 5). */
function identifiers(pid: Er7Segment | undefined): Array<{ id: string; type: string | undefined }> {
  const found: Array<{ id: string; type: string | undefined }> = [];
  for (let repetition = 0; repetition < (pid?.repetitions(3) ?? 0); repetition++) {
    const id = pid!.text(3, 1, repetition);
    if (id) found.push({ id, type: pid!.text(3, 5, repetition) });
  }
  return found;
}

/** Where each field of an item came from, in its OBX segment. */
const ITEM_SOURCES: Record<string, string> = {
  itemCode: "OBX-3.1",
  itemName: "OBX-3.2",
  value: "OBX-5",
  unit: "OBX-6.1",
  refLow: "OBX-7",
  refHigh: "OBX-7",
  abnormalFlag: "OBX-8",
  resultType: "OBX-2",
};
const ITEM_PATH = /^items\[(\d+)\](?:\.([^.[\]]+))?/;
const LAST_STEP = /(\.[^.[\]]+|\[\d+\])$/;

export function oruToLabReport(message: Er7Message): MappedOru {
  const msh = message.all("MSH")[0]!;
  const pid = message.all("PID")[0];
  const obr = message.all("OBR")[0];
  const controlId = msh.text(10) ?? "";
  const ids = identifiers(pid);
  const nationalId = ids.find((id) => id.type === "NNCHN")?.id;
  const reportedAt = obr?.text(22);
  const status = obr?.text(25);

  const report: Record<string, unknown> = {
    externalId: obr?.text(3) ?? obr?.text(2) ?? (controlId || undefined),
    reportNo: obr?.text(3),
    patient: definedOnly({
      idCard: nationalId ?? pid?.text(19),
      hisPatientId: (ids.find((id) => id.type === "PI") ?? ids[0])?.id,
      name: personName(pid),
    }),
    panelName: obr?.text(4, 2),
    collectedAt: hl7LocalDateTime(obr?.text(7)),
    reportedAt: hl7LocalDateTime(reportedAt ?? msh.text(7)),
    status: status === undefined ? undefined : (STATUSES[status] ?? status),
    items: message.all("OBX").map((obx) => {
      const valueType = obx.text(2);
      const value = obx.text(5);
      return definedOnly({
        itemCode: obx.text(3),
        itemName: obx.text(3, 2),
        value:
          valueType === "NM" && value !== undefined && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value,
        unit: obx.text(6),
        ...referenceRange(obx.text(7)),
        abnormalFlag: obx.text(8),
        resultType: valueType && QUALITATIVE_TYPES.has(valueType) ? "QUALITATIVE" : undefined,
      });
    }),
  };
  // Where each field of the report came from (or would have come from, when it is missing).
  const reportSources: Record<string, string> = {
    externalId: obr?.text(3) ? "OBR-3" : obr?.text(2) ? "OBR-2" : "MSH-10",
    reportNo: "OBR-3",
    patient: "PID-3",
    "patient.idCard": nationalId ? "PID-3" : "PID-19",
    "patient.hisPatientId": "PID-3",
    "patient.name": "PID-5",
    panelName: "OBR-4.2",
    collectedAt: "OBR-7",
    reportedAt: reportedAt ? "OBR-22" : "MSH-7",
    status: "OBR-25",
    items: "OBX-3",
  };

  return {
    controlId,
    report: definedOnly(report),
    // A path below a mapped field (`items[2].value.x`) belongs to the nearest one above it.
    sourceOf(path) {
      const item = ITEM_PATH.exec(path);
      if (item) return loc(ITEM_SOURCES[item[2] ?? ""] ?? "OBX-3", Number(item[1]) + 1);
      for (let at = path; at; at = at.replace(LAST_STEP, "")) {
        const source = reportSources[at];
        if (source) return loc(source);
        if (!LAST_STEP.test(at)) return undefined;
      }
      return undefined;
    },
  };
}
