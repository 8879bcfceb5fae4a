import { ApiError, segment } from "./staffApi.ts";
import type { QueueChangeWords } from "./claimTexts.ts";
import type { PageContext } from "./page.ts";
import type { ReportHistory, UnmatchedEntry } from "./types.ts";

/*
 * Issue #51 finding 6: a claim made on the queue as read before someone else dismissed the report
 * silently overrode the dismissal. The pages send every decision with the report as they showed it
 * (If-Match: the entry's etag); when the service refuses because the report changed since, the
 * person is told so in their language, with what last happened to it and by whom, and the queue
 * behind the dialog shows the report as it is now.
 */

/** Refusals that say the report is no longer as the page showed it. */
const STALE = new Set(["queue-entry-changed", "report-dismissed", "report-already-matched", "report-not-found"]);
const TOLD = new Set<QueueChangeWords["event"]>(["RECEIVED", "REQUEUED", "CLAIMED", "DISMISSED"]);

/** Claims or dismisses a waiting report, based on the entry as the page showed it. */
export async function decideOnEntry(
  ctx: PageContext,
  entry: UnmatchedEntry,
  decision: "claim" | "dismiss",
  body: { patientRef: string } | { reason: string },
): Promise<void> {
  await ctx.api.exchange("POST", `/api/unmatched/${segment(entry.kind)}/${segment(entry.externalId)}/${decision}`, {
    body,
    headers: { "if-match": entry.etag },
  });
}

/**
 * For a decision refused because the report changed since: the refusal's words, what last happened
 * to the report and by whom (from its history), and the queue refreshed. Null for any other failure.
 */
export async function staleEntryWords(
  ctx: PageContext,
  entry: UnmatchedEntry,
  error: unknown,
  refresh: () => Promise<void>,
): Promise<string | null> {
  if (!(error instanceof ApiError) || !error.code || !STALE.has(error.code)) return null;
  // A report that is not found (another ward's patient's now, as far as this person may know) has no history to tell.
  const [last] = await Promise.all([error.status === 409 ? lastChange(ctx, entry) : null, refresh().catch(() => {})]);
  return [error.message, last, ctx.texts.queueRefreshed].filter(Boolean).join(" ");
}

async function lastChange(ctx: PageContext, entry: UnmatchedEntry): Promise<string | null> {
  try {
    const history = await ctx.api.get<ReportHistory>(
      `/api/history/${segment(entry.kind)}/${segment(entry.externalId)}`,
    );
    const change = history.entries.findLast((told) => TOLD.has(told.event as QueueChangeWords["event"]));
    if (!change) return null;
    return ctx.texts.queueChange({
      event: change.event as QueueChangeWords["event"],
      by: change.by,
      at: change.at.replace("T", " "),
      reason: change.reason ?? null,
    });
  } catch {
    return null;
  }
}
