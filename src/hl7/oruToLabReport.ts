import type { HL7Field, HL7Message, HL7Segment } from "hl7v2";

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

function text(field: HL7Field | undefined, component = 1): string | undefined {
  const value = field?.comp(component)?.getValue();
  return value === undefined || value === null || value === "" ? undefined : String(value);
}

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
function personName(field: HL7Field | undefined): string | undefined {
  const parts = [text(field, 1), text(field, 2)].filter((part): part is string => part !== undefined);
  if (parts.length === 0) return undefined;
  return parts.join(parts.some((part) => CJK.test(part)) ? "" : " ");
}

function identifiers(pid: HL7Segment | undefined): Array<{ id: string; type: string | undefined }> {
  const field = pid?.field(3);
  return (field?.repetitions ?? []).flatMap((rep) => {
    const id = rep.comp(1)?.getValue();
    return id === undefined || id === null || id === "" ? [] : [{ id: String(id), type: rep.comp(5)?.getValue() ?? undefined }];
  });
}

/** The message's segments of a type, in order. */
function segments(message: HL7Message, type: string): HL7Segment[] {
  return message.segments.filter((segment) => segment.segmentType === type);
}

export function oruToLabReport(message: HL7Message): MappedOru {
  const sources = new Map<string, Hl7Location>();
  const report: Record<string, unknown> = {};
  const put = (target: Record<string, unknown>, path: string, key: string, value: unknown, source: string | Hl7Location) => {
    if (value === undefined) return;
    target[key] = value;
    sources.set(path, typeof source === "string" ? loc(source) : source);
  };
  const msh = message.header;
  const pid = segments(message, "PID")[0];
  const obr = segments(message, "OBR")[0];
  const controlId = text(msh.field(10)) ?? "";

  const externalId = text(obr?.field(3)) ?? text(obr?.field(2)) ?? controlId;
  put(report, "externalId", "externalId", externalId || undefined, text(obr?.field(3)) ? "OBR-3" : text(obr?.field(2)) ? "OBR-2" : "MSH-10");
  put(report, "reportNo", "reportNo", text(obr?.field(3)), "OBR-3");

  const ids = identifiers(pid);
  const patient: Record<string, unknown> = {};
  const nationalId = ids.find((id) => id.type === "NNCHN")?.id;
  put(patient, "patient.idCard", "idCard", nationalId ?? text(pid?.field(19)), nationalId ? "PID-3" : "PID-19");
  put(patient, "patient.hisPatientId", "hisPatientId", (ids.find((id) => id.type === "PI") ?? ids[0])?.id, "PID-3");
  put(patient, "patient.name", "name", personName(pid?.field(5)), "PID-5");
  report.patient = patient;
  sources.set("patient", loc("PID-3"));

  put(report, "panelName", "panelName", text(obr?.field(4), 2), "OBR-4.2");
  put(report, "collectedAt", "collectedAt", hl7LocalDateTime(text(obr?.field(7))), "OBR-7");
  const reportedAt = text(obr?.field(22));
  put(report, "reportedAt", "reportedAt", hl7LocalDateTime(reportedAt ?? text(msh.field(7))), reportedAt ? "OBR-22" : "MSH-7");
  const status = text(obr?.field(25));
  put(report, "status", "status", status === undefined ? undefined : (STATUSES[status] ?? status), "OBR-25");

  const items = segments(message, "OBX").map((obx, i) => {
    const item: Record<string, unknown> = {};
    const at = (field: string) => loc(field, i + 1);
    const valueType = text(obx.field(2));
    const value = text(obx.field(5));
    put(item, `items[${i}].itemCode`, "itemCode", text(obx.field(3), 1), at("OBX-3.1"));
    put(item, `items[${i}].itemName`, "itemName", text(obx.field(3), 2), at("OBX-3.2"));
    put(item, `items[${i}].value`, "value", valueType === "NM" && value !== undefined && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value, at("OBX-5"));
    put(item, `items[${i}].unit`, "unit", text(obx.field(6), 1), at("OBX-6.1"));
    const range = referenceRange(text(obx.field(7)));
    put(item, `items[${i}].refLow`, "refLow", range.refLow, at("OBX-7"));
    put(item, `items[${i}].refHigh`, "refHigh", range.refHigh, at("OBX-7"));
    put(item, `items[${i}].abnormalFlag`, "abnormalFlag", text(obx.field(8)), at("OBX-8"));
    put(item, `items[${i}].resultType`, "resultType", valueType && QUALITATIVE_TYPES.has(valueType) ? "QUALITATIVE" : undefined, at("OBX-2"));
    sources.set(`items[${i}]`, at("OBX-3"));
    return item;
  });
  report.items = items;
  sources.set("items", loc("OBX-3"));

  return {
    controlId,
    report,
    // A path below a mapped field (`items[2].value.x`) belongs to the nearest one above it.
    sourceOf(path) {
      for (let at = path; at; at = at.replace(/(\.[^.[\]]+|\[\d+\])$/, "")) {
        const found = sources.get(at);
        if (found) return found;
        if (!/(\.[^.[\]]+|\[\d+\])$/.test(at)) return undefined;
      }
      return undefined;
    },
  };
}
