/*
 * The delta check's one rule (contract F.3), shared by the reactor that raises DELTA alerts and the
 * results query that flags points, so that a flagged point and an alert never disagree. Pure:
 * no dictionary, no database.
 */

/** A dictionary item's delta limit, as judged (its cited source aside). */
export interface DeltaLimitRule {
  limit: number;
  percent: boolean;
  days: number;
}

/** A result as the rule sees it: its standard value, and when it was collected (else reported), local `yyyy-MM-ddTHH:mm:ss`. */
export interface Measured {
  value: number;
  at: string;
}

/**
 * How far `result` moved from `previous` (value − previous, signed, standard unit) when that is
 * beyond `limit`; null when within it, or when `previous` was collected more than `days` before:
 * a change over months is the course of a disease, not a specimen mix-up. A percent limit cannot
 * judge a move from zero.
 */
export function deltaBeyondLimit(
  result: Measured,
  previous: Measured,
  limit: DeltaLimitRule,
): { change: number } | null {
  if (wallClockMillis(result.at) - wallClockMillis(previous.at) > limit.days * 86_400_000) return null;
  const change = roundedChange(result.value - previous.value);
  if (limit.percent) {
    if (previous.value === 0) return null;
    return (Math.abs(change) / Math.abs(previous.value)) * 100 > limit.limit ? { change } : null;
  }
  return Math.abs(change) > limit.limit ? { change } : null;
}

/** Without the binary noise of a subtraction (5.4 − 3.6 is 1.8000000000000003), which would tip a change equal to the limit over it. */
function roundedChange(change: number): number {
  return Number(change.toPrecision(12));
}

/**
 * A local date-time's wall-clock reading as milliseconds, so that "within 30 days" counts calendar
 * days as the database's `timestamp` arithmetic does, whatever a clock change did between them.
 */
function wallClockMillis(at: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})$/.exec(at);
  if (!match) return Number.NaN;
  const [year, month, day, hours, minutes, seconds] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(year, month - 1, day, hours, minutes, seconds);
}
