/*
 * Numbers a sender or an author gives are bounded where they enter (contract E.6, issue #52): an
 * item mapping's factor of 1e308 once overflowed a projection's arithmetic and stopped item rows
 * for every hospital. Within these bounds no sum, difference, product or quotient the service
 * computes from them (conversions, delta checks, derived values) leaves PostgreSQL's or
 * JavaScript's double precision, so none can fail later.
 *
 * No laboratory value comes near them: the largest in the dictionary's units is a count in 10^9/L
 * or an IPTH in pg/mL, far below 10^15; the smallest factor of a real unit conversion is about
 * 10^-6 (µg to g), the largest 10^6.
 */

/** A sent value whose magnitude exceeds this is kept as sent but not read as a number (an unreadable value, B.2). */
export const LARGEST_READ_NUMBER = 1e15;
/** An item mapping's factor lies within these, both included. */
export const SMALLEST_FACTOR = 1e-9;
export const LARGEST_FACTOR = 1e9;

/**
 * A formula's divisor smaller in magnitude than this is no divisor (the quotient is no value, as
 * for zero): 1e15 divided by 5e-324 leaves double precision, and stopped the quality months'
 * read model for a tenant (its fuzz test). Quotients stay within 1e30.
 */
export const SMALLEST_DIVISOR = 1 / LARGEST_READ_NUMBER;

/** Whether a sent number is read as one. */
export function isReadableNumber(n: number): boolean {
  return Number.isFinite(n) && Math.abs(n) <= LARGEST_READ_NUMBER;
}

/** An SQL double expression, null where its magnitude exceeds the bound (rows of events stored before it). */
export const boundedSql = (x: string) => `(case when abs(${x}) <= ${LARGEST_READ_NUMBER} then ${x} end)`;

/** An SQL condition: a stored mapping's factor within the bounds (mappings made before they were checked). */
export const factorInBoundsSql = (factor: string) => `(${factor} between ${SMALLEST_FACTOR} and ${LARGEST_FACTOR})`;
