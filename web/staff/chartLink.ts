import { segment } from "./staffApi.ts";

/** An item to open the chart on, and the report whose value of it is marked (the one that raised an alert). */
export interface ChartFocus {
  code: string;
  externalId: string | null;
}

/**
 * `#chart/<patientRef>`, or `#chart/<patientRef>?code=K&report=<externalId>`: the chart opened on
 * an item with one report's value marked. The patientRef is a path segment (a `?` in it is
 * escaped), so the first `?` always starts the focus.
 */
export function chartHref(patientRef: string, focus?: ChartFocus): string {
  if (!focus) return `#chart/${segment(patientRef)}`;
  const query = new URLSearchParams({ code: focus.code });
  if (focus.externalId) query.set("report", focus.externalId);
  return `#chart/${segment(patientRef)}?${query}`;
}

/**
 * The patient and focus of a chart fragment as written by chartHref (`hash` is `location.hash`);
 * `fallback` (the page's patientRef as the router decoded it) when the fragment is not one.
 */
export function chartAddressOf(hash: string, fallback: string): { patientRef: string; focus: ChartFocus | null } {
  const match = /^#\/?chart\/([^?]*)(?:\?(.*))?$/.exec(hash);
  if (!match) return { patientRef: fallback.split("?")[0]!, focus: null };
  let patientRef: string;
  try {
    patientRef = decodeURIComponent(match[1]!);
  } catch {
    patientRef = match[1]!;
  }
  const query = new URLSearchParams(match[2] ?? "");
  const code = query.get("code")?.trim().toUpperCase();
  return { patientRef, focus: code ? { code, externalId: query.get("report") || null } : null };
}
