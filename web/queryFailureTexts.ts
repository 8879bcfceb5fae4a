/**
 * Why a report query failed, in the page's words (issue #54): by the code the service gives beside
 * its sentence. The words are the exports' too (src/reports/export/queryFailureWords.ts), so a
 * page and a file say a failure alike; a reader is never shown the database's own text.
 */
import { QUERY_FAILURES, queryFailureWords } from "../src/reports/export/queryFailureWords.ts";
import type { Lang } from "./types.ts";

export { QUERY_FAILURES };

/** A failed query's words in `lang`: by its code, else the general sentence (never the database's text). */
export function queryFailureText(failure: { error?: string; code?: string }, lang: Lang): string {
  return queryFailureWords(failure, lang);
}
