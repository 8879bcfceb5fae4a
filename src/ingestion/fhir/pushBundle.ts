import type { Bundle, BundleEntry, OperationOutcome } from "fhir/r4.js";
import { CommandError } from "../../../commands/kit/commandError.ts";
import {
  checkReports,
  MAX_REPORTS_PER_PUSH,
  pushReports,
  storeCheckedReportsAtOnce,
  type IngestionDeps,
  type PushingClient,
  type ResultEntry,
} from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import type { Dictionary } from "../../../db/seed/defaultDictionary.ts";
import { MAX_REPORTS_PER_BUNDLE, type PostedBundle } from "./bundleSchema.ts";
import { bundleToLabReports, type MappedReport } from "./bundleToLabReports.ts";
import { operationOutcome, type Issue } from "./operationOutcome.ts";

/*
 * POST /fhir/r4 (contract D.6): each DiagnosticReport of a batch or transaction Bundle goes through
 * the push command as the lab report it maps to. A batch stores the valid ones and answers each
 * entry; a transaction stores all of them in one database transaction, or none when one is
 * rejected. The Observations and the Patient a report refers to are answered with their report:
 * they are stored as its items and its patient, not as resources of their own.
 */

export interface BundleAnswer {
  status: number;
  body: Bundle | OperationOutcome;
  /** CREATED, UPDATED, UNCHANGED or REJECTED per DiagnosticReport (for the counts). */
  outcomes: string[];
}

const loincCodesOf = new WeakMap<Dictionary, ReadonlyMap<string, string>>();

/** The dictionary's item code of each LOINC code it knows. */
function loincCodes(dictionary: Dictionary): ReadonlyMap<string, string> {
  let codes = loincCodesOf.get(dictionary);
  if (!codes)
    loincCodesOf.set(
      dictionary,
      (codes = new Map(dictionary.items.flatMap((item) => (item.loinc ? [[item.loinc, item.code] as const] : [])))),
    );
  return codes;
}

export async function pushBundle(
  deps: IngestionDeps,
  client: PushingClient,
  bundle: PostedBundle,
  requestId: string,
): Promise<BundleAnswer> {
  const entries = bundle.entry as BundleEntry[];
  const mapped = bundleToLabReports(bundle as Bundle, loincCodes(deps.dictionary));
  if (mapped.length === 0)
    throw new CommandError(
      "invalid",
      "The Bundle holds no DiagnosticReport: send each lab report as a DiagnosticReport with its Observations and Patient.",
    );
  if (mapped.length > MAX_REPORTS_PER_BUNDLE)
    throw new CommandError(
      "too-large",
      `The Bundle holds ${mapped.length} DiagnosticReports; send at most ${MAX_REPORTS_PER_BUNDLE} a Bundle.`,
    );
  const unclaimed = unclaimedEntries(entries, mapped);
  const origins = mapped.map(({ entryIndex }) => ({
    format: "fhir-r4",
    ...(entries[entryIndex]!.fullUrl ? { fullUrl: entries[entryIndex]!.fullUrl } : {}),
  }));
  const metadata = { actor: client.name, client: client.clientId, requestId };

  let results: ResultEntry[];
  if (bundle.type === "batch") {
    results = [];
    for (let from = 0; from < mapped.length; from += MAX_REPORTS_PER_PUSH) {
      const part = mapped.slice(from, from + MAX_REPORTS_PER_PUSH);
      const pushed = await pushReports(
        deps,
        reportKinds.lab,
        client,
        { reports: part.map(({ report }) => report) },
        requestId,
        origins.slice(from, from + MAX_REPORTS_PER_PUSH),
      );
      results.push(...pushed.results);
    }
  } else {
    const checked = await checkReports(
      deps,
      reportKinds.lab,
      client,
      mapped.map(({ report }) => report),
      origins,
    );
    const rejections = mapped.flatMap((report, i) => issuesOf(report, checked.results[i]));
    if (unclaimed.size > 0 || rejections.length > 0) {
      // All or nothing: nothing was stored, every report counts as refused (results of accepted ones are holes until stored).
      return {
        status: 400,
        body: operationOutcome([...unclaimed.values(), ...rejections]),
        outcomes: Array.from(checked.results, (result) => result?.status ?? "REJECTED"),
      };
    }
    results = (await storeCheckedReportsAtOnce(deps, reportKinds.lab, client, checked, metadata)).results;
  }

  const responses: Array<{ response: { status: string; outcome?: OperationOutcome } } | undefined> = entries.map(
    (_, index) => {
      const issue = unclaimed.get(index);
      return issue ? { response: { status: "400 Bad Request", outcome: operationOutcome([issue]) } } : undefined;
    },
  );
  mapped.forEach((report, i) => {
    const response = responseOf(report, results[i]!);
    responses[report.entryIndex] = { response };
    // The entries a report refers to share its answer; a Patient shared by reports takes that of a stored one.
    for (const index of report.refersTo) {
      const before = responses[index];
      if (!before || before.response.status.startsWith("4"))
        responses[index] = {
          response: { ...response, ...(response.outcome ? { outcome: referredOutcome(report) } : {}) },
        };
    }
  });
  return {
    status: 200,
    body: {
      resourceType: "Bundle",
      type: bundle.type === "batch" ? "batch-response" : "transaction-response",
      entry: responses.map((response) => response!),
    },
    outcomes: results.map((result) => result.status),
  };
}

/** Entries neither a DiagnosticReport nor referred to by one: nothing to store them as. */
function unclaimedEntries(entries: BundleEntry[], mapped: MappedReport[]): Map<number, Issue> {
  const claimed = new Set(mapped.flatMap(({ entryIndex, refersTo }) => [entryIndex, ...refersTo]));
  const unclaimed = new Map<number, Issue>();
  entries.forEach((entry, index) => {
    if (claimed.has(index)) return;
    unclaimed.set(index, {
      code: "not-supported",
      diagnostics:
        `This ${entry.resource?.resourceType ?? "entry"} is not referred to by a DiagnosticReport of the Bundle ` +
        "(as its subject or in its result); only DiagnosticReports with their Observations and Patient are taken.",
      expression: `Bundle.entry[${index}]`,
    });
  });
  return unclaimed;
}

function issuesOf(report: MappedReport, result: ResultEntry | undefined): Issue[] {
  if (!result || result.status !== "REJECTED") return [];
  return result.errors.map(({ field, message }) => ({
    code: /required/i.test(message) ? "required" : "invalid",
    diagnostics: `${field}: ${message}`,
    expression: report.expressionOf(field),
  }));
}

function responseOf(report: MappedReport, result: ResultEntry): { status: string; outcome?: OperationOutcome } {
  if (result.status === "REJECTED")
    return { status: "400 Bad Request", outcome: operationOutcome(issuesOf(report, result)) };
  return { status: result.status === "CREATED" ? "201 Created" : "200 OK" };
}

function referredOutcome(report: MappedReport): OperationOutcome {
  return operationOutcome([
    {
      code: "invalid",
      diagnostics: `Not stored: the DiagnosticReport at Bundle.entry[${report.entryIndex}] that refers to it was rejected.`,
      expression: `Bundle.entry[${report.entryIndex}]`,
    },
  ]);
}
