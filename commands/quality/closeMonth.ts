import { readStream, type AppendResult, type StoredEvent } from "../../db/eventStore.ts";
import type { CommandContext } from "../kit/commandContext.ts";
import { CommandError } from "../kit/commandError.ts";
import { handleCommand, type Decider } from "../kit/handleCommand.ts";
import {
  qualityMonthStreams,
  type ClosedIndicator,
  type QualityMonthClosed,
  type QualityMonthClosedData,
  type QualityMonthEvent,
} from "./events.ts";

/*
 * Contract G.2: closing a month freezes its figures. The figures are counted by the read side
 * (queries/quality) and handed in: the decision here is whether the month may be closed, once it
 * has ended in the service's time zone, and once for each ward (and once for the whole tenant).
 */

/** The closes a month's stream holds, by ward ("" for the whole tenant). */
export type ClosedMonthState = ReadonlyMap<string, StoredEvent<QualityMonthClosed>>;

export interface CloseMonth {
  month: string;
  ward: string | null;
  closedBy: string;
  /** The current month in the service's time zone (yyyy-MM): a month closes once it has ended. */
  currentMonth: string;
}

/** The month's figures as counted for a close: the read side counts them (the wiring passes it in). */
export interface CountedMonth {
  /** The store position the figures were counted at (the last event the quality_months projection had applied). */
  position: number | null;
  indicators: ClosedIndicator[];
}

export type CountMonth = (month: string, ward: string | null) => Promise<CountedMonth>;

export const wardKey = (ward: string | null) => ward ?? "";

/** Why the month may not be closed (a CommandError), if it may not. */
function refuseClosing(command: CloseMonth, state: ClosedMonthState): void {
  if (command.month >= command.currentMonth)
    throw new CommandError(
      "conflict",
      `${command.month} has not ended yet in the service's time zone; close it from the first day of the next month.`,
      "month-not-ended",
    );
  const closed = state.get(wardKey(command.ward));
  if (closed) {
    const whose = command.ward === null ? "the whole tenant" : `ward ${JSON.stringify(command.ward)}`;
    throw new CommandError(
      "conflict",
      `${command.month} of ${whose} was closed already (by ${closed.data.closedBy}); its figures stay as closed: GET its restatement to see what changed since.`,
      "month-closed",
    );
  }
}

export const closedMonthDecider: Decider<ClosedMonthState, CloseMonth & CountedMonth, QualityMonthEvent> = {
  initialState: () => new Map(),
  evolve: (state, event) => new Map(state).set(wardKey(event.data.ward), event),
  decide(command, state) {
    refuseClosing(command, state);
    const data: QualityMonthClosedData = {
      month: command.month,
      ward: command.ward,
      closedBy: command.closedBy,
      position: command.position,
      indicators: command.indicators,
    };
    return [{ type: "QualityMonthClosed", data }];
  },
};

/**
 * Closes a month (of a ward, or of the whole tenant): refused before anything is counted when it
 * may not be closed, then counted by `count` and appended, the rules decided again on the stream
 * as it stands then (two closes at once: the second is refused). Throws a CommandError.
 */
export async function closeMonth(
  ctx: CommandContext,
  tenant: string,
  command: CloseMonth,
  count: CountMonth,
): Promise<AppendResult> {
  const streamId = qualityMonthStreams.id(command.month);
  const { events } = await readStream<QualityMonthEvent>(ctx.store.db, tenant, streamId);
  refuseClosing(command, events.reduce(closedMonthDecider.evolve, closedMonthDecider.initialState()));
  const counted = await count(command.month, command.ward);
  const { appended } = await handleCommand(
    ctx.store,
    { tenant, streamId },
    closedMonthDecider,
    { ...command, ...counted },
    ctx.metadata,
  );
  return appended!;
}
