import { z } from "zod";
import type { StoredEvent } from "../../db/eventStore.ts";
import { localDateTime } from "../../db/localDateTime.ts";
import { CommandError } from "../kit/commandError.ts";
import type { ApiErrorCode } from "../kit/errorCodes.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { isClaimed, isDismissed, reportEtag, type ReportStreamEvent } from "./events.ts";
import type { ReportKind } from "./reportKinds.ts";
import { evolveReportStream, initialReportStreamState, type ReportStreamState } from "./reportStreamState.ts";

export const claimInput = z.object({
  patientRef: z
    .string({ error: "patientRef is required: the patient this report belongs to" })
    .trim()
    .min(1, "patientRef must not be empty"),
});

export const dismissInput = z.object({
  reason: z
    .string({ error: "reason is required: say why the report is set aside, e.g. 'not a dialysis patient'" })
    .trim()
    .min(1, "reason must not be empty")
    .max(500),
});

/**
 * `basedOn`: the stream version of the report as the caller read it (its `If-Match`, reportEtag):
 * the decision is refused when the report changed since, instead of overriding what someone else
 * decided a moment before (issue #51 finding 6).
 */
export type QueueDecision =
  /** `idCard`: the one the claim matched by (auto-claim); a person's claim keeps the report's. */
  | { type: "claim"; patientRef: string; by: string; auto: boolean; idCard?: string; basedOn?: number }
  | { type: "dismiss"; reason: string; by: string; basedOn?: number };

/** One event of the report stream as the refusals tell it: what happened, by whom, when. */
export interface QueueChange {
  version: number;
  event: "received" | "claimed" | "dismissed";
  by: string;
  at: Date;
  reason: string | null;
  /** claimed: the patient, which a refusal names only when the caller may see them (manageQueue.ts). */
  patientRef: string | null;
}

/** The stream state the queue decides on, with its changes told one by one (for the refusals' sentences). */
export interface QueueState extends ReportStreamState {
  changes: QueueChange[];
}

/**
 * A refusal of a claim or dismissal. `matchedTo`: the patient the report now belongs to, when it
 * does; the caller turns the refusal into "no such report" when that patient is outside the
 * caller's wards (contract E.2: another ward's patient is as if it did not exist).
 */
export class QueueRefusal extends CommandError {
  constructor(
    message: string,
    code: ApiErrorCode,
    readonly matchedTo: string | null,
  ) {
    super("conflict", message, code);
  }
}

function changeOf(event: StoredEvent<ReportStreamEvent>): QueueChange {
  const told = { version: event.streamVersion, at: event.recordedAt, reason: null, patientRef: null };
  if (isClaimed(event))
    return {
      ...told,
      event: "claimed",
      by: event.data.auto ? "auto" : (event.data.by ?? event.metadata.actor),
      patientRef: event.data.patientRef,
    };
  if (isDismissed(event))
    return { ...told, event: "dismissed", by: event.data.by ?? event.metadata.actor, reason: event.data.reason };
  return { ...told, event: "received", by: event.data.client.name };
}

/** A change in words, naming no patient (the refusal's reader may not be allowed to see them). */
function told(change: QueueChange): string {
  const when = `at ${localDateTime(change.at)}`;
  if (change.event === "dismissed")
    return `dismissed by ${change.by} ${when} (reason: ${JSON.stringify(change.reason)})`;
  if (change.event === "claimed") return `claimed for a patient by ${change.by} ${when}`;
  return `sent again by ${change.by} ${when}`;
}

const rereadHint =
  "GET /api/unmatched gives each waiting report's etag, GET /api/history/{kind}/{externalId} any report's";

/** Refused: the report is not the one the caller read. Says what changed since, and by whom. */
function changedSince(basedOn: number, state: QueueState): QueueRefusal {
  const since = state.changes.filter((change) => change.version > basedOn);
  const what =
    since.length === 0
      ? `the ETag ${reportEtag(basedOn)} is not one this report has had`
      : `since ${reportEtag(basedOn)} it was ${since.map(told).join(", then ")}`;
  return new QueueRefusal(
    `This report changed since you read it: ${what}. Nothing was done. It is now ${reportEtag(state.version)}; read it again (${rereadHint}) and decide anew.`,
    "queue-entry-changed",
    matchedTo(state),
  );
}

const matchedTo = (state: QueueState): string | null => (state.match?.matched ? state.match.patientRef : null);

/** The caller retrying their own decision (an answer lost on the way): every change since is theirs and already says what they ask. */
function ownRetry(decision: QueueDecision, basedOn: number, state: QueueState): boolean {
  const since = state.changes.filter((change) => change.version > basedOn);
  if (since.length === 0 || since.some((change) => change.by !== decision.by)) return false;
  return decision.type === "dismiss" ? state.dismissed : matchedTo(state) === decision.patientRef;
}

/**
 * Claiming and dismissing a report waiting in the unmatched queue (contract C.4). A decision never
 * silently overrides another (issue #51 finding 6): one based on a version the report has left
 * is refused, and a claim of a dismissed report is made only by a caller who read the dismissal
 * (its If-Match names the report as dismissed).
 */
export function queueDecider(kind: ReportKind): Decider<QueueState, QueueDecision, ReportStreamEvent> {
  return {
    initialState: () => ({ ...initialReportStreamState(), changes: [] }),
    evolve: (state, event) => ({ ...evolveReportStream(state, event), changes: [...state.changes, changeOf(event)] }),
    decide: (decision, state) => {
      // Auto-claim takes only a report that still waits, so a replay finds its earlier claims made and decides nothing.
      if (decision.type === "claim" && decision.auto && (!state.received || state.match?.matched || state.dismissed))
        return [];
      if (!state.received)
        throw new CommandError(
          "not-found",
          `There is no ${kind.name} report with this externalId; check the id in GET /api/unmatched.`,
          "report-not-found",
        );
      if (
        decision.basedOn !== undefined &&
        decision.basedOn !== state.version &&
        !ownRetry(decision, decision.basedOn, state)
      )
        throw changedSince(decision.basedOn, state);
      if (state.match?.matched) {
        if (decision.type === "claim" && decision.patientRef === state.match.patientRef) return [];
        throw new QueueRefusal(
          `This report is already matched to patient ${state.match.patientRef}; only reports awaiting claim can be claimed or dismissed.`,
          "report-already-matched",
          state.match.patientRef,
        );
      }
      if (decision.type === "dismiss") {
        return state.dismissed
          ? []
          : [{ type: kind.events.dismissed, data: { reason: decision.reason, by: decision.by } }];
      }
      if (state.dismissed && decision.basedOn === undefined) throw dismissedAlready(state);
      return [
        {
          type: kind.events.claimed,
          data: {
            patientRef: decision.patientRef,
            idCard: decision.idCard ?? state.match?.idCard ?? null,
            by: decision.by,
            auto: decision.auto,
          },
        },
      ];
    },
  };
}

/**
 * A claim without If-Match of a report someone dismissed: refused, not silently made over the
 * dismissal. A dismissed report no longer awaits claim (contract C.4: it leaves the queue); the
 * caller who means to claim it all the same says so with the report's ETag as it is now.
 */
function dismissedAlready(state: QueueState): QueueRefusal {
  const dismissal = state.changes.findLast((change) => change.event === "dismissed");
  const what = dismissal ? told(dismissal) : "dismissed";
  return new QueueRefusal(
    `This report no longer awaits claim: it was ${what}. To claim it all the same, send the claim again with ` +
      `If-Match: ${reportEtag(state.version)} (its history, GET ` +
      "/api/history/{kind}/{externalId}, tells the same).",
    "report-dismissed",
    null,
  );
}
