import { z } from "zod";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The two written forms of a local date-time in answers, as schemas for the OpenAPI document. */
export const localDateTimeText = z.string().meta({
  description: "Local date-time yyyy-MM-dd HH:mm:ss in the service's time zone",
  example: "2026-03-01 08:30:00",
});
export const localIsoDateTimeText = z.string().meta({
  description: "Local date-time yyyy-MM-ddTHH:mm:ss (no zone) in the service's time zone",
  example: "2026-03-01T08:30:00",
});
/**
 * A timestamptz as PostgreSQL writes it (`::text`, to the microsecond), as a paging cursor keeps a
 * row's moment: cursors come back from callers, so one is checked before SQL casts it.
 */
export const storedMomentText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/);

/** `yyyy-MM-dd HH:mm:ss` in the service's time zone (TZ), the form both interfaces use. */
export function localDateTime(date: Date): string {
  return `${localDate(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function localDate(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** True for a real calendar date written `yyyy-MM-dd`. */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The instant a local `yyyy-MM-dd HH:mm:ss` names in the service's time zone; null for no such moment. */
export function parseLocalDateTime(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day, hours, minutes, seconds] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // setFullYear, not the constructor: the constructor reads years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setFullYear(year, month - 1, day);
  date.setHours(hours, minutes, seconds, 0);
  // A day or time that does not exist (30 February, 24:00, a clock change's gap) comes back changed.
  return year >= 1 && localDateTime(date) === value ? date : null;
}

/** `yyyy-MM-ddTHH:mm:ss` in the service's time zone, no zone suffix: the report-viewing interface's form. */
export function localIsoDateTime(date: Date): string {
  return localDateTime(date).replace(" ", "T");
}

/** The instants a local day (`yyyy-MM-dd`) spans, [start, end): from its midnight to the next; null for no such day (or a midnight a clock change skips). */
export function localDaySpan(day: string): { start: Date; end: Date } | null {
  const start = isCalendarDate(day) ? parseLocalDateTime(`${day} 00:00:00`) : null;
  if (!start) return null;
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { start, end };
}
