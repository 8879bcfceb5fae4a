import type { Bundle } from "fhir/r4.js";
import { er7Messages, mshFields } from "../ingestion/hl7/er7Messages.ts";
import { readMessage } from "../ingestion/hl7/pushHl7Messages.ts";
import { bundleToLabReports } from "../ingestion/fhir/bundleToLabReports.ts";
import type { MessageChannel, MessageError } from "./receivedMessage.ts";

/** What a message carried, read from its body and its answer by the writer (never on the answer's path). */
export interface MessageFacts {
  /** Every report's externalId, the refused ones' too, in the order sent. */
  externalIds: string[];
  /** National ids and HIS ids as sent: hashed before they are stored, and masked when shown. */
  idCards: string[];
  hisIds: string[];
  errors: MessageError[];
}

const NO_LOINC = new Map<string, string>();

interface SentReport {
  externalId?: unknown;
  patient?: { idCard?: unknown; hisPatientId?: unknown };
}

/** The facts of a message of `channel` from its body (as text) and the answer it was given. */
export function messageFacts(channel: MessageChannel, body: string, answer: unknown): MessageFacts {
  const reports = sentReports(channel, body);
  const texts = (pick: (report: SentReport) => unknown) =>
    unique(reports.map(pick).filter((value): value is string => typeof value === "string" && value.trim() !== ""));
  return {
    externalIds: texts((report) => report.externalId),
    idCards: texts((report) => report.patient?.idCard),
    hisIds: texts((report) => report.patient?.hisPatientId),
    errors: answerErrors(channel, answer),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** The reports the body held as the push command would take them; none from a body that cannot be read. */
function sentReports(channel: MessageChannel, body: string): SentReport[] {
  try {
    switch (channel) {
      case "open-v1":
      case "bulk": {
        const parsed: unknown = channel === "bulk" ? { reports: [JSON.parse(body)] } : JSON.parse(body);
        const reports = (parsed as { reports?: unknown }).reports;
        return Array.isArray(reports) ? reports.filter(isObject) : [];
      }
      case "hl7-http":
      case "hl7-mllp":
        return er7Messages(body).messages.flatMap((er7) => {
          const read = readMessage(er7);
          return "mapped" in read ? [read.mapped.report as SentReport] : [];
        });
      case "fhir":
        return bundleToLabReports(JSON.parse(body) as Bundle, NO_LOINC).map(({ report }) => report as SentReport);
    }
  } catch {
    return [];
  }
}

function isObject(value: unknown): value is SentReport {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the answer said was wrong, per report where it says which. */
function answerErrors(channel: MessageChannel, answer: unknown): MessageError[] {
  if (channel === "hl7-http" || channel === "hl7-mllp") return typeof answer === "string" ? ackErrors(answer) : [];
  if (!isObject(answer)) return [];
  const envelope = answer as { code?: unknown; msg?: unknown; data?: { results?: unknown } };
  if (typeof envelope.code === "number") {
    if (envelope.code >= 300) return [{ field: "", message: String(envelope.msg) }];
    const results = Array.isArray(envelope.data?.results) ? (envelope.data.results as unknown[]) : [];
    return results.flatMap((entry) => {
      const rejected = entry as { status?: string; externalId?: string | null; errors?: MessageError[] };
      if (rejected.status !== "REJECTED") return [];
      return (rejected.errors ?? []).map(({ field, message }) => ({
        externalId: rejected.externalId ?? null,
        field,
        message,
      }));
    });
  }
  return fhirErrors(answer);
}

/** The MSA-3 text of each ACK that is not AA. */
function ackErrors(acks: string): MessageError[] {
  return acks
    .split("\r")
    .filter((segment) => segment.startsWith("MSA"))
    .flatMap((msa) => {
      const fields = msa.split("|");
      return fields[1] === "AA" ? [] : [{ field: "", message: fields[3] ?? fields[1] ?? "" }];
    });
}

interface Outcome {
  resourceType?: string;
  issue?: Array<{ diagnostics?: string; expression?: string[] }>;
}

/** The issues of an OperationOutcome, or of each entry's outcome in a response Bundle. */
function fhirErrors(answer: object): MessageError[] {
  const outcomes: Outcome[] =
    (answer as Outcome).resourceType === "OperationOutcome"
      ? [answer as Outcome]
      : ((answer as Bundle).entry ?? []).flatMap((entry) => (entry.response?.outcome ? [entry.response.outcome] : []));
  return outcomes.flatMap((outcome) =>
    (outcome.issue ?? []).map((issue) => ({ field: issue.expression?.[0] ?? "", message: issue.diagnostics ?? "" })),
  );
}

/** An ER7 body with each MSH-8 (Security: the client key over MLLP) blanked, so that no key is kept. */
export function withoutKeys(er7: string): string {
  return er7.replace(/(^|[\r\n])(MSH[^\r\n]*)/g, (_, start: string, msh: string) => {
    const fields = mshFields(msh);
    if (fields.length < 8 || fields[7] === "") return `${start}${msh}`;
    fields[7] = "";
    return `${start}${fields.join(msh[3]!)}`;
  });
}
