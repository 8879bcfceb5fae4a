import fc from "fast-check";
import { brokenPromises, describeExchange, type Interface } from "../../support/answerChecks.ts";
import type { RawAnswer, RawHttpClient, RawRequest } from "../../support/rawHttp.ts";

/**
 * Property-based fuzzing over HTTP. Each property run sends a batch of generated requests at once
 * over kept-alive connections (the server sees concurrent hostile calls, the run stays short), and
 * every answer must keep the promises of answerChecks.ts. A failure is shrunk by fast-check and
 * reported with its seed: FUZZ_SEED=<seed> repeats the run.
 */

/** Requests sent by every fuzz target of this process, shrinking included. */
export const fuzzTally = { sent: 0 };

const seedFromEnv = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

export interface FuzzTarget {
  name: string;
  iface: Interface;
  requests: fc.Arbitrary<RawRequest>;
  /** How many requests to send in all (rounded up to whole batches). */
  count: number;
  /** A report query's `error` may carry the database's sentence (contract A.2). */
  databaseWordsAllowed?: boolean;
  /** Further promises of this endpoint: a sentence when one is broken. */
  check?: (request: RawRequest, answer: RawAnswer) => string | null;
}

export interface FuzzOptions {
  client: RawHttpClient;
  concurrency: number;
  /** Log lines of the service's faults, shown beside a broken promise. */
  faults?: () => string[];
}

/** Fuzzes one target; resolves to the number of requests sent. */
export async function fuzz(target: FuzzTarget, options: FuzzOptions): Promise<number> {
  const before = fuzzTally.sent;
  const batch = fc.array(target.requests, { minLength: options.concurrency, maxLength: options.concurrency });
  await fc.assert(
    fc.asyncProperty(batch, async (requests) => {
      const answers = await Promise.all(
        requests.map(async (request) => {
          fuzzTally.sent++;
          return options.client.send(request);
        }),
      );
      requests.forEach((request, i) => {
        const answer = answers[i]!;
        const broken = brokenPromises(target.iface, request, answer, {
          databaseWordsAllowed: target.databaseWordsAllowed,
        });
        const extra = target.check?.(request, answer);
        if (extra) broken.push(extra);
        if (broken.length > 0) {
          const faults = options.faults?.().slice(-3).join("\n") ?? "";
          throw new Error(
            `${target.name}: ${broken.join("; ")}\n${describeExchange(request, answer)}${faults ? `\nservice log:\n${faults}` : ""}`,
          );
        }
      });
    }),
    {
      numRuns: Math.ceil(target.count / options.concurrency),
      seed: seedFromEnv,
      endOnFailure: process.env.FUZZ_SHRINK !== "1",
    },
  );
  return fuzzTally.sent - before;
}

// The total over every fuzz target of the run, printed once at the end (issue #7 asks for the number).
process.once("exit", () => {
  if (fuzzTally.sent > 0) console.log(`\n  fuzzed inputs tried in all: ${fuzzTally.sent}`);
});
