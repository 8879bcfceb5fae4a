import { createReadStream, createWriteStream, statSync } from "node:fs";
import http from "node:http";
import { once } from "node:events";
import { until } from "./ingest.ts";
import { getJson, makeBatch } from "./ingestSenders.ts";

/*
 * Bulk jobs as a laboratory sends them: a job's file of the ingest group's reports, its upload,
 * and waiting for it to be DONE. Used by the bulk group, the profiled runs and the defence group.
 */

const DAYS = 1000;

/** The day of batch `batch` of a job: a thousand days from 2020-01-01, round again. */
export function dayOf(batch: number): string {
  return new Date(Date.UTC(2020, 0, 1 + (batch % DAYS))).toISOString().slice(0, 10);
}

/**
 * A job's body, written to a file before the clock starts (a laboratory's export): batches
 * `from` to `to` of the run. A line of these reports is about 3 kB, so a job of the contract's
 * 512 MB holds at most ~170,000 of them: larger runs are cut into jobs of JOB_REPORTS.
 */
export const JOB_REPORTS = 100_000;

export async function writeJobFile(file: string, run: string, from: number, to: number): Promise<number> {
  const out = createWriteStream(file);
  for (let b = from; b < to; b++) {
    const text =
      makeBatch(run, 0, b, dayOf(b))
        .reports.map((report) => JSON.stringify(report))
        .join("\n") + "\n";
    if (!out.write(text)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return statSync(file).size;
}

export function upload(url: string, key: string, file: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/x-ndjson",
          "content-length": String(statSync(file).size),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    createReadStream(file).pipe(request);
  });
}

/** The job `jobId` of `key`'s client once it is DONE (an error if it FAILED). */
export async function jobDone(url: string, key: string, jobId: string): Promise<Record<string, any>> {
  let job: Record<string, any> = {};
  await until(
    "job done",
    async () => {
      job = (await getJson(`${url}/open/v1/bulk/${jobId}`, key)).body.data;
      if (job.status === "FAILED") throw new Error(`the job failed: ${job.reason}`);
      return job.status === "DONE";
    },
    3_600_000,
  );
  return job;
}

/** Uploads a job file as `key`'s client: its job id. */
export async function uploadJob(url: string, key: string, file: string): Promise<string> {
  const answer = await upload(`${url}/open/v1/lab/reports/bulk`, key, file);
  if (answer.status !== 202)
    throw new Error(`the upload answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body.data.jobId as string;
}
