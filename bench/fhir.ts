import type { Bundle, BundleEntry, DiagnosticReport, Observation, Patient } from "fhir/r4.js";
import { loadDefaultDictionary } from "../db/seed/defaultDictionary.ts";
import { NATIONAL_ID_SYSTEM } from "../src/ingestion/fhir/bundleToLabReports.ts";
import { ingestionTenant, labReport, ZHANG_SAN } from "../test/support/ingestion.ts";
import { createTestDatabase } from "../test/support/database.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { buildServer } from "../src/buildServer.ts";
import { result, type BenchResult } from "./results.ts";
import { timedSenders } from "./timedSenders.ts";

/*
 * #20: batch Bundles of 100 DiagnosticReports of 20 Observations each, posted to /fhir/r4 by 4
 * senders, against the same reports pushed as JSON by 4 senders, 100 a push, in the same run, each
 * on a fresh service and database.
 */

const SENDERS = 4;
const BUNDLES_PER_SENDER = Number(process.env.BENCH_FHIR_BUNDLES ?? 10);
const REPORTS_PER_BUNDLE = 100;
const RESULTS = 20;
const LOINC = ["718-7", "2823-3", "2951-2", "17861-6", "2777-1", "1751-7", "2160-0", "3094-0", "2345-7", "1988-5"];

const value = (i: number, j: number) => ((j + i) % 97) + 1;

/** The i-th report of a sender as a DiagnosticReport entry, its Observations and (first in the Bundle) its Patient. */
function reportEntries(sender: number, i: number, patientUrl: string): BundleEntry[] {
  const id = `FHIRB-${sender}-${i}`;
  const observations: BundleEntry<Observation>[] = Array.from({ length: RESULTS }, (_, j) => ({
    fullUrl: `urn:uuid:${id}-${j}`,
    resource: {
      resourceType: "Observation",
      status: "final",
      code: {
        coding: [
          j < LOINC.length
            ? { system: "http://loinc.org", code: LOINC[j]! }
            : { system: "http://lis.example.cn/items", code: `X${j}` },
        ],
        text: `项目${j}`,
      },
      valueQuantity: { value: value(i, j), unit: "g/L" },
      referenceRange: [{ low: { value: 1 }, high: { value: 100 } }],
      interpretation: [{ coding: [{ code: "N" }] }],
    },
  }));
  const report: BundleEntry<DiagnosticReport> = {
    fullUrl: `urn:uuid:${id}`,
    resource: {
      resourceType: "DiagnosticReport",
      identifier: [{ value: id }],
      status: "final",
      code: { text: "透析月度检查" },
      subject: { reference: patientUrl },
      effectiveDateTime: "2026-03-01T07:30:00+08:00",
      issued: "2026-03-01T10:00:00+08:00",
      result: observations.map((entry) => ({ reference: entry.fullUrl })),
    },
  };
  return [report, ...observations];
}

function bundle(sender: number, from: number): Bundle {
  const patientUrl = `urn:uuid:patient-${sender}-${from}`;
  const patient: BundleEntry<Patient> = {
    fullUrl: patientUrl,
    resource: {
      resourceType: "Patient",
      identifier: [{ system: NATIONAL_ID_SYSTEM, value: ZHANG_SAN.idCard }],
      name: [{ text: ZHANG_SAN.name }],
    },
  };
  return {
    resourceType: "Bundle",
    type: "batch",
    entry: [
      patient,
      ...Array.from({ length: REPORTS_PER_BUNDLE }, (_, k) => reportEntries(sender, from + k, patientUrl)).flat(),
    ],
  };
}

const dictionaryCodeOf = new Map(
  loadDefaultDictionary().items.flatMap((item) => (item.loinc ? [[item.loinc, item.code] as const] : [])),
);

/** The same report as a JSON push sends it (items by the dictionary codes the Bundle's LOINC codes name). */
function jsonReport(sender: number, i: number) {
  return labReport(`JSONF-${sender}-${i}`, {
    items: Array.from({ length: RESULTS }, (_, j) => ({
      itemCode: j < LOINC.length ? (dictionaryCodeOf.get(LOINC[j]!) ?? LOINC[j]!) : `X${j}`,
      itemName: `项目${j}`,
      value: value(i, j),
      unit: "g/L",
      refLow: 1,
      refHigh: 100,
      abnormalFlag: "N",
    })),
  });
}

async function measure(kind: "fhir" | "json"): Promise<{ perSecond: number; accepted: number }> {
  const service = await spawnService({ databaseUrl: await createTestDatabase(false) });
  try {
    const tenant = await ingestionTenant(service, "lab");
    // Built before the clock starts: the senders' own work is not the service's.
    const bodies = Array.from({ length: SENDERS }, (_, s) =>
      Array.from({ length: BUNDLES_PER_SENDER }, (_, b) =>
        kind === "fhir"
          ? JSON.stringify(bundle(s, b * REPORTS_PER_BUNDLE))
          : JSON.stringify({
              reports: Array.from({ length: REPORTS_PER_BUNDLE }, (_, k) => jsonReport(s, b * REPORTS_PER_BUNDLE + k)),
            }),
      ),
    );
    return await timedSenders(
      bodies.map((mine) => async () => {
        let accepted = 0;
        for (const body of mine) {
          const answer = await fetch(`${service.url}${kind === "fhir" ? "/fhir/r4" : "/open/v1/lab/reports"}`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${tenant.client.key}`,
              "content-type": kind === "fhir" ? "application/fhir+json" : "application/json",
            },
            body,
          });
          const answered = (await answer.json()) as {
            data?: { accepted: number };
            entry?: Array<{ response: { status: string } }>;
          };
          if (kind === "json") accepted += answered.data?.accepted ?? 0;
          else
            accepted += (answered.entry ?? []).filter(
              (entry, k) => k % (RESULTS + 1) === 1 && entry.response.status === "201 Created",
            ).length;
        }
        return accepted;
      }),
    );
  } finally {
    await service.stop();
  }
}

export async function fhirBenchmarks(): Promise<BenchResult[]> {
  await buildServer();
  const total = SENDERS * BUNDLES_PER_SENDER * REPORTS_PER_BUNDLE;
  const json = await measure("json");
  const fhir = await measure("fhir");
  if (fhir.accepted !== total || json.accepted !== total)
    throw new Error(`not every report was accepted: FHIR ${fhir.accepted}, JSON ${json.accepted} of ${total}`);
  const note =
    `batch Bundles of ${REPORTS_PER_BUNDLE} DiagnosticReports x ${RESULTS} Observations, ${SENDERS} senders, ` +
    `${total} reports, until the last answer; baseline: the same reports pushed as JSON, ${REPORTS_PER_BUNDLE} a ` +
    `push, ${SENDERS} senders; target ratio >= 0.7`;
  return [result("fhir.reports_per_s", fhir.perSecond, "reports/s", json.perSecond, note)];
}
