import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The quality context's published language (contract G.2): a month's figures closed, frozen with
 * the indicator versions they were counted by and the point of the store they are of. One stream
 * a month of a tenant, `quality-month:<yyyy-MM>`, holding a close for the whole tenant and one for
 * each ward closed apart, so that closing the same month and ward twice is one stream's decision.
 */

/** A month as the quality figures name it: `yyyy-MM`, months 01 to 12. */
export const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `quality-month:<yyyy-MM>`. */
export const qualityMonthStreams = streamCodec("quality-month:");

/** Where a patient stood in an indicator when the month was closed. */
export type ClosedPlace = "met" | "notMet" | "untested";

/** An indicator's figures as closed: what the month's answer showed, frozen. */
export interface ClosedIndicator {
  code: string;
  version: number;
  numerator: number;
  denominator: number;
  rate: number | null;
  patients: Record<ClosedPlace, string[]>;
}

export interface QualityMonthClosedData {
  /** yyyy-MM */
  month: string;
  /** The ward closed; null: the whole tenant. */
  ward: string | null;
  closedBy: string;
  /**
   * The store position the figures were counted at: the last event the quality_months projection
   * had applied. The events after it are those a restatement names.
   */
  position: number | null;
  indicators: ClosedIndicator[];
}

export type QualityMonthClosed = Event<"QualityMonthClosed", QualityMonthClosedData>;

/** The events of a quality month's stream. */
export type QualityMonthEvent = QualityMonthClosed;
