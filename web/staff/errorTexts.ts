import type { PendingCode } from "../../commands/ingestion/patientMatching.ts";

/**
 * The words of what the service answers by a stable code (issue #34 item 6): why a report waits for
 * a patient (`pendingCode`, contract C.4). A code the page does not know shows the service's sentence.
 */
export interface ErrorTexts {
  pendingReasons: Record<PendingCode, string>;
}

export const errorZh: ErrorTexts = {
  pendingReasons: {
    "no-id-card": "报告未提供身份证号",
    "invalid-id-card": "身份证号无效",
    "no-patient": "没有此身份证号的透析患者",
    "name-differs": "姓名与该身份证号登记的患者不一致",
  },
};

export const errorEn: ErrorTexts = {
  pendingReasons: {
    "no-id-card": "The report sent no id card number",
    "invalid-id-card": "The id card number is not valid",
    "no-patient": "No dialysis patient has this id card number",
    "name-differs": "The name differs from the patient registered with this id card number",
  },
};

/** Why a report waits, in the page's language when its code is known, else as the service wrote it. */
export function pendingReasonText(texts: ErrorTexts, entry: { pendingReason: string; pendingCode?: PendingCode | null }): string {
  return (entry.pendingCode && texts.pendingReasons[entry.pendingCode]) || entry.pendingReason;
}
