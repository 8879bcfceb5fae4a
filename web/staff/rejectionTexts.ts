/**
 * Why a line of a bulk job (or a pushed report) was rejected, in the page's language (issue #54):
 * by the stable code beside each field's sentence (commands/ingestion/reportSchemas.ts). English
 * shows the service's sentence, which names the field and the rule; Chinese has words for every
 * code, the field being named in its own column. A rejection stored before the codes existed
 * shows the service's sentence.
 */
import type { FieldErrorCode } from "../../commands/ingestion/reportSchemas.ts";
import type { Lang } from "../types.ts";

const REJECTIONS_ZH: Record<FieldErrorCode, (message: string) => string> = {
  required: () => "缺少此字段，请发送它。",
  "wrong-type": () => "类型不对（例如应为数字或文本，却发送了其他类型）。",
  "too-long": () => "内容过长，请缩短。",
  "too-many": () => "条目过多（每份报告最多 500 项），请拆分为多份报告。",
  "too-few": () => "不能为空，请至少发送一项。",
  // The allowed values are codes (FINAL, L, H …), the same in every language.
  "not-allowed": (message) => {
    const allowed = /one of (.+)$/.exec(message)?.[1];
    return allowed ? `不是允许的取值，应为以下之一：${allowed}` : "不是允许的取值。";
  },
  format: () => "格式不符合要求（例如应为大写字母、数字和下划线组成的代码，如 SERUM）。",
  "date-time": () => "日期时间无效，应写作 2026-03-01 08:30:00 这样的格式（年-月-日 时:分:秒），且须为真实的时间。",
  "number-range": () => "数值超出范围（应在 -1e15 与 1e15 之间）。",
  "patient-unidentified": () => "缺少患者标识：请发送身份证号（idCard）或 HIS 患者号（hisPatientId）。",
  "item-unidentified": () => "缺少项目代码或项目名称（itemCode 或 itemName），请至少发送其一。",
  "reference-range": () => "参考范围下限大于上限，请检查 refLow 与 refHigh。",
  "exam-type": () => "不是字典中的检查类型代码。",
  "not-object": () => "每份报告须为一个 JSON 对象。",
  "not-json": () => "这一行不是有效的 JSON：请每行发送一份报告的 JSON 对象。",
  "unstorable-text": () => "含有无法保存的字符（如 NUL 或不成对的代理字符），请去掉。",
  invalid: () => "取值无效。",
};

/** A field's problem in the page's language. */
export function rejectionText(error: { message: string; code?: string }, lang: Lang): string {
  const words = error.code ? REJECTIONS_ZH[error.code as FieldErrorCode] : undefined;
  return lang === "zh" && words ? words(error.message) : error.message;
}
