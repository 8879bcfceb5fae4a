/**
 * How the interface names a report's versions (contract A.2): `v1`, `v2`, … for the published ones,
 * `draft` for the draft. A part of the published language: the restore body, the viewing calls and
 * the OpenAPI document all speak it.
 */
export const DRAFT_LABEL = "draft";

/** A published version's label as the interface states its shape (OpenAPI, the restore body). */
export const VERSION_LABEL = /^v[1-9][0-9]*$/;

// A version's number is an integer column: a label of ten digits or more names no version.
const MAX_LABEL_LENGTH = 10;

export const versionLabel = (no: number): string => `v${no}`;

/** The number of the published version a label names; null when it names none (`draft`, `v0`, `v99999999999`). */
export function versionNo(label: string): number | null {
  return VERSION_LABEL.test(label) && label.length <= MAX_LABEL_LENGTH ? Number(label.slice(1)) : null;
}
