import { ingestionDeps } from "./ingestionDeps.ts";
import { randomUUID } from "node:crypto";
import { createReadStream, openSync, readSync, closeSync } from "node:fs";
import { pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import type { Logger } from "pino";
import { BulkImporter } from "../../reactors/bulkImporter.ts";
import { submitBulkJob } from "../../commands/bulk/submitBulkJob.ts";
import { reportKinds } from "../../commands/ingestion/reportKinds.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { loadDefaultDictionary } from "../../db/seed/defaultDictionary.ts";
import { readAsTenant, TENANT_PATTERN } from "../../db/tenantScope.ts";
import { waitForProjection } from "../../projections/runtime/waitForProjection.ts";
import { bulkJobOfClient, bulkJobRejections, type BulkJobAnswer } from "../../queries/bulk/bulkJobs.ts";
import { activeClientsNamed, type Client } from "../../queries/credentials/credentials.ts";
import { progressBar, ratePerSecond } from "./progressBar.ts";

/*
 * `npm run cli -- import lab|exam <file> --tenant <t> --client <name>` (contract D.4): the file
 * goes through the same submission as an upload over HTTP, then this process helps run the job
 * (any worker may, a running service's included) and shows its progress until it ends.
 */

export interface ImportFileOptions {
  tenant: string;
  client: string;
  wait: boolean;
}

const POLL_MS = 250;
const REJECTED_SHOWN = 20;
const GZIP_MAGIC = [0x1f, 0x8b];

export async function importFile(
  store: EventStore,
  log: Logger,
  kindName: string,
  file: string,
  options: ImportFileOptions,
): Promise<void> {
  if (kindName !== "lab" && kindName !== "exam") throw new Error(`import takes lab or exam, not ${kindName}`);
  if (!TENANT_PATTERN.test(options.tenant)) throw new Error("--tenant must be 1 to 64 letters, digits, '_' or '-'");
  const client = await sendingClient(store, options.tenant, options.client);
  const gzip = startsWithGzipMagic(file);
  const source = gzip ? pipeline(createReadStream(file), createGunzip(), () => {}) : createReadStream(file);
  const job = await submitBulkJob(store, reportKinds[kindName], client, source, {
    requestId: `cli-${randomUUID()}`,
    gzip,
  });
  console.log(
    `job ${job.jobId} queued: ${job.lines.toLocaleString("en")} ${kindName} ` +
      `report${job.lines === 1 ? "" : "s"} from ${file}${gzip ? " (gzip)" : ""}, sent as ${client.name}`,
  );
  if (!options.wait) return;
  await waitForProjection(store.db, "bulk_jobs", job.last, 30_000);

  const dictionary = loadDefaultDictionary();
  const importer = new BulkImporter(ingestionDeps(store, dictionary), null, log, {
    safetyNetMs: 1000,
    pollingIntervalSeconds: 1,
  });
  await importer.start();
  try {
    const ended = await followJob(store, client, job.jobId);
    await summarise(store, client, ended);
  } finally {
    await importer.stop();
  }
}

async function sendingClient(store: EventStore, tenant: string, name: string): Promise<Client> {
  const clients = await activeClientsNamed(store.db, tenant, name);
  if (clients.length === 0)
    throw new Error(
      `tenant ${tenant} has no client named ${JSON.stringify(name)} with a working key; create one with \`keys create --tenant ${tenant} --name …\``,
    );
  if (clients.length > 1)
    throw new Error(
      `tenant ${tenant} has ${clients.length} clients named ${JSON.stringify(name)}; revoke the ones no longer used`,
    );
  return clients[0]!;
}

function startsWithGzipMagic(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

/** Polls the job until it ends, with a progress bar (a line every few seconds when not on a terminal). */
async function followJob(store: EventStore, client: Client, jobId: string): Promise<BulkJobAnswer> {
  const bar = progressBar("lines");
  let job = await jobOf(store, client, jobId);
  bar.start(job.lines, 0, { rate: 0, status: job.status });
  const started = { at: performance.now(), processed: job.processed };
  try {
    while (job.status !== "DONE" && job.status !== "FAILED") {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      job = await jobOf(store, client, jobId);
      bar.update(job.processed, {
        rate: ratePerSecond(started.at, job.processed - started.processed),
        status: job.status,
      });
    }
  } finally {
    bar.stop();
  }
  return job;
}

async function jobOf(store: EventStore, client: Client, jobId: string): Promise<BulkJobAnswer> {
  const job = await readAsTenant(store.db, client.tenant, (reader) => bulkJobOfClient(reader, jobId, client.clientId));
  if (!job) throw new Error(`job ${jobId} is not shown yet; follow it with GET /open/v1/bulk/${jobId}`);
  return job;
}

async function summarise(store: EventStore, client: Client, job: BulkJobAnswer): Promise<void> {
  const n = (value: number) => value.toLocaleString("en");
  console.log(
    `${job.status === "DONE" ? "done" : "FAILED"}: ${n(job.processed)} of ${n(job.lines)} lines: ` +
      `${n(job.accepted)} accepted (created ${n(job.created)}, updated ${n(job.updated)}, ` +
      `unchanged ${n(job.unchanged)}; ${n(job.unmatched)} waiting for a patient in the unmatched queue), ${n(job.rejected)} rejected`,
  );
  if (job.reason) console.log(job.reason);
  if (job.rejected > 0) {
    const page = await readAsTenant(store.db, client.tenant, (reader) =>
      bulkJobRejections(reader, job.jobId, { limit: REJECTED_SHOWN }),
    );
    for (const rejected of page.items) {
      console.log(
        `line ${rejected.line}${rejected.externalId ? ` (${rejected.externalId})` : ""}: ` +
          `${rejected.errors.map((error) => (error.field ? `${error.field}: ${error.message}` : error.message)).join("; ")}`,
      );
    }
    if (page.total > page.items.length)
      console.log(
        `… and ${n(page.total - page.items.length)} more: GET /open/v1/bulk/${job.jobId}/rejected?offset=${page.items.length}`,
      );
  }
  if (job.status !== "DONE" || job.rejected > 0) process.exitCode = 1;
}
