import type { PendingCode } from "../../commands/ingestion/events.ts";
import type { ApiErrorCode } from "../../commands/kit/errorCodes.ts";
import { EXPORT_REFUSALS as EXPORT_WORDS, VIEWING_REFUSALS as VIEWING_WORDS } from "../i18n.ts";

/**
 * The words of what the service answers by a stable code (issue #34 item 6): why a report waits for
 * a patient (`pendingCode`, contract C.4), and the `code` of an `/api` failure (`{ error, code }`,
 * contract A.1). A code without words here shows the service's sentence: English keeps it where it
 * names what to fix (which ward, which digit, which patient), Chinese has words for every code.
 */
export interface ErrorTexts {
  pendingReasons: Record<PendingCode, string>;
  errorCodes: Partial<Record<ApiErrorCode, string>>;
}

export const errorZh: ErrorTexts = {
  pendingReasons: {
    "no-id-card": "报告未提供身份证号",
    "invalid-id-card": "身份证号无效",
    "no-patient": "没有此身份证号的透析患者",
    "name-differs": "姓名与该身份证号登记的患者不一致",
  },
  errorCodes: {
    "credentials-missing": "请先登录。",
    "token-invalid": "令牌无效，请向管理员索取作者令牌。",
    "token-expired": "令牌已过期或已被替换，请向管理员索取新的令牌。",
    "session-ended": "会话已失效（闲置过久、已退出或超出时段），请重新登录。",
    "csrf-missing": "会话校验失败，请刷新页面后重试。",
    "tenant-mismatch": "此凭据属于另一家医院（租户），请使用本院的凭据。",
    "role-needed": "您的角色无权执行此操作，请联系管理员。",
    "patient-not-found": "本院没有此患者（或不在您的病区）。",
    "patient-outside-wards": "您只能管理本人病区的患者，请填写您所在的病区。",
    "id-card-invalid": "身份证号无效：应为 18 位（17 位数字加校验位 0-9 或 X），出生日期须真实，校验位须正确。",
    "id-card-taken": "此身份证号已登记给另一位患者，请修改该患者。",
    "report-not-found": "没有这份报告，请刷新待认领列表。",
    "report-already-matched": "这份报告已关联患者，只能认领或忽略待认领的报告。",
    "claim-not-found": "这份报告已不在待认领列表中，或没有该患者；请刷新后重试。",
    "alert-not-found": "没有这条危急值提醒，请刷新列表。",
    "alert-needs-no-acknowledgement":
      "这一条无需确认：危急结果的变化随其危急值提醒一并确认，回到参考范围内的变化仅供参考。",
    "draft-saved-again": "草稿在您打开之后又被保存过。",
    "draft-gone": "草稿已不存在（已被发布或放弃）。",
    "report-never-published": "这份报表还没有发布过；请先发布，或打开草稿。",
    "credential-exists": "已有相同标识的凭据，请换一个标识。",
    "credential-not-found": "没有这个凭据，请刷新列表。",
    "credential-revoked": "这个凭据已被吊销，不能再轮换；请新建一个。",
    "credential-expired": "这个凭据已过期，新的密钥不会比它存活更久；请新建一个。",
    "credentials-other-tenant": "您只能管理本院（本租户）的凭据。",
    "credentials-other-wards": "您只能管理本人病区的令牌：病区须在您的病区之内；或请管理全部病区的管理员处理。",
    "lab-key-every-ward": "检验系统的密钥适用于所有病区，只能由管理全部病区的管理员管理。",
    "credentials-rebuilding": "凭据列表正在升级后重建，请几秒后再试。",
    "chart-range-invalid": "时间范围无效：开始日期须不晚于结束日期，且一次最多查看 10 年。",
    "unmapped-range-invalid": "时间范围无效：开始日期须不晚于结束日期，且一次最多查看 366 天。",
    "mapping-invalid": "无法建立此映射，请按提示修改后重试。",
    "mapping-exists": "此项目已有生效的映射，请先撤销原映射。",
    "mapping-not-found": "没有此映射（可能已被撤销）。",
    "queue-entry-changed": "这份报告在您打开之后已被他人处理或重新发送，本次操作未执行。",
    "report-dismissed": "这份报告已被搁置，不再等待认领；本次认领未执行。",
    "id-card-taken-outside-wards":
      "此身份证号已登记给另一位患者（不在您的病区）：请核对号码，或请管理全部病区的同事处理。",
    "exports-per-address": EXPORT_WORDS.zh["exports-per-address"],
    "exports-busy": EXPORT_WORDS.zh["exports-busy"],
    "month-invalid": "月份无效：请写作 yyyy-MM（如 2026-10），且不晚于本月。",
    "ward-required": "您只能查看本人病区的质控数据，请选择您的一个病区。",
    "ward-not-found": "本院没有这个病区（或不在您的病区之内）。",
    "month-not-ended": "这个月尚未结束，月末之后才能关账。",
    "month-closed": "这个月（此病区）已经关账，不能重复关账。",
    "month-not-closed": "这个月（此病区）尚未关账，没有可比较的冻结数据。",
    "access-log-every-ward":
      "全院访问日志涉及所有病区的患者，只有管理全部病区的管理员可以查看；请在患者图表中查看单个患者的访问记录。",
    "report-version-not-found": VIEWING_WORDS.zh["report-version-not-found"],
    "read-back-required": "本科室要求复述：请填写您复述的结果数值，以及您通知的人员姓名与职务。",
    "read-back-mismatch": "复述的数值与危急值不符，本次确认未被接受并已记录；请对照报告重新核对后再复述。",
  },
};

export const errorEn: ErrorTexts = {
  pendingReasons: {
    "no-id-card": "The report sent no id card number",
    "invalid-id-card": "The id card number is not valid",
    "no-patient": "No dialysis patient has this id card number",
    "name-differs": "The name differs from the patient registered with this id card number",
  },
  errorCodes: {
    "credentials-missing": "Sign in first.",
    "token-invalid": "The token is not valid; ask the administrator for an author token.",
    "session-ended": "The session ended (idle too long, signed out, or past its hours); sign in again.",
    "csrf-missing": "The session could not be checked; reload the page and try again.",
    "patient-not-found": "There is no such patient here (or not in your wards).",
    "report-not-found": "There is no such report; reload the queue.",
    "claim-not-found": "The report no longer awaits claiming, or there is no such patient; reload and try again.",
    "alert-not-found": "There is no such alert; reload the list.",
    "alert-needs-no-acknowledgement":
      "This needs no acknowledgement: the change of a critical result is acknowledged with its critical alert, and a change back inside the reference range is information.",
    "draft-saved-again": "The draft was saved again since you opened it.",
    "draft-gone": "There is no draft now: it was published or discarded.",
    "credential-not-found": "There is no such credential; reload the list.",
    "queue-entry-changed":
      "Someone else dealt with this report, or it was sent again, since you opened it; nothing was done.",
    "report-dismissed": "This report was dismissed and no longer awaits a patient; it was not claimed.",
    "id-card-taken-outside-wards":
      "This id card number is already registered to another patient, outside your wards: check the number, or ask someone who acts on every ward.",
    "exports-per-address": EXPORT_WORDS.en["exports-per-address"],
    "exports-busy": EXPORT_WORDS.en["exports-busy"],
    "month-not-ended": "This month has not ended yet; close it from the first day of the next month.",
    "month-closed":
      "This month (of this ward) was closed already: its figures stay as closed, and what changed since shows under Changes since the close.",
    "access-log-every-ward":
      "The tenant's access log names patients of every ward: only an administrator of every ward may read it; a patient's own log is on their chart.",
    "report-version-not-found": VIEWING_WORDS.en["report-version-not-found"],
    "read-back-required":
      "This unit asks for a read-back: enter the value as you read it back, and the name and role of the person you told.",
    "read-back-mismatch":
      "The value read back does not match the critical value: the acknowledgement was not taken and the attempt is recorded; check the report and read it back again.",
  },
};

/** Why a report waits, in the page's language when its code is known, else as the service wrote it. */
export function pendingReasonText(
  texts: ErrorTexts,
  entry: { pendingReason: string; pendingCode?: PendingCode | null },
): string {
  return (entry.pendingCode && texts.pendingReasons[entry.pendingCode]) || entry.pendingReason;
}
