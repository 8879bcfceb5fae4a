import type { AccessOutcome } from "../../commands/access/events.ts";
import type { StaffRole } from "./session.ts";

/** The words of signing in through the hospital's identity provider, roles, and the access log (contract E.1–E.4). */
export interface TrustTexts {
  signInWith: (provider: string) => string;
  signInWithHint: string;
  orWithToken: string;
  signedInAsPerson: (name: string, roles: string) => string;
  roleNames: Record<StaffRole, string>;
  noRole: string;
  wardsOf: (wards: string) => string;
  signingOut: string;
  signOutFailed: string;
  /** A page beyond the person's roles was asked for: the role it needs, and the page opened instead. */
  notForRole: (role: string, opened: string) => string;

  credentials: string;
  credentialsIntro: string;

  accessLog: string;
  accessLogTitle: (name: string) => string;
  accessLogIntro: (days: number) => string;
  noAccessRecords: string;
  accessColWhen: string;
  accessColWho: string;
  accessColRoles: string;
  accessColAction: string;
  accessColOutcome: string;
  accessMore: (shown: number) => string;
  outcomes: Record<AccessOutcome, string>;

  patientCopy: string;
  patientCopyHint: string;
  patientCopyPreparing: string;
  patientCopySaved: (file: string) => string;
  patientCopyFailed: (why: string) => string;
  /** What a person understands by an access record's action (the route); others are shown as the route. */
  actions: Record<string, string>;
}

export const trustZh: TrustTexts = {
  signInWith: (provider) => `通过 ${provider} 登录`,
  signInWithHint: "使用医院统一身份账号登录，权限与病区由医院身份系统决定。",
  orWithToken: "使用个人访问令牌登录（无法使用统一身份时）",
  signedInAsPerson: (name, roles) => `${name} · ${roles}`,
  roleNames: {
    admin: "管理员",
    author: "报表作者",
    clinician: "临床",
    viewer: "只读",
    researcher: "科研",
    integrator: "接口",
  },
  noRole: "无角色",
  wardsOf: (wards) => `病区 ${wards}`,
  signingOut: "正在退出…",
  signOutFailed: "退出失败，请重试。",
  notForRole: (role, opened) => `此页面需要“${role}”角色，已为您打开“${opened}”。`,

  credentials: "凭据",
  credentialsIntro: "本机构的作者令牌与检验科接入密钥：谁能做什么、最近何时使用、何时到期；可吊销或轮换。",

  accessLog: "谁查看过该患者",
  accessLogTitle: (name) => `谁查看过 ${name}`,
  accessLogIntro: (days) => `最近 ${days} 天内显示过该患者信息或结果的每一次应答，最新的在前。`,
  noAccessRecords: "这段时间内没有查看记录。",
  accessColWhen: "时间",
  accessColWho: "人员",
  accessColRoles: "角色",
  accessColAction: "操作",
  accessColOutcome: "结果",
  accessMore: (shown) =>
    `仅显示最近的 ${shown} 条；更早的记录请用 GET /api/patients/{patientRef}/access-log 分页读取。`,
  actions: {
    "GET /api/patients": "患者列表",
    "GET /api/patients/{patientRef}": "患者信息",
    "GET /api/patients/{patientRef}/results": "病历图表与结果",
    "GET /api/patients/{patientRef}/result-items": "可绘制的检验项目",
    "GET /api/patients/{patientRef}/copy": "下载患者副本",
    "PUT /api/patients/{patientRef}": "登记或修改患者",
    "GET /api/alerts": "危急值列表",
    "GET /api/alerts/stream": "危急值实时推送",
    "POST /api/alerts/{alertId}/acknowledge": "确认危急值",
    "GET /api/unmatched": "待认领报告",
    "GET /api/unmatched/{kind}/{externalId}/check": "认领前核对患者",
    "POST /api/unmatched/{kind}/{externalId}/claim": "认领报告",
    "GET /api/history/{kind}/{externalId}": "报告历史",
    "GET /api/history/{kind}/{externalId}/versions/{n}": "报告历史版本",
    "GET /api/history/{kind}/{externalId}/diff": "报告版本差异",
    "POST /api/reports/{id}/data": "报表数据",
    "POST /api/reports/{id}/drill": "报表明细",
    "POST /api/reports/{id}/export/xlsx": "导出 Excel",
    "POST /api/reports/{id}/export/docx": "导出 Word",
    "GET /fhir/r4/Patient": "FHIR 患者查询",
    "GET /fhir/r4/Observation": "FHIR 检验结果查询",
    "GET /fhir/r4/DiagnosticReport": "FHIR 报告查询",
  },
  outcomes: {
    shown: "已显示",
    cut: "未显示完（中断）",
    "not-found": "未找到",
    invalid: "请求有误",
    refused: "被拒绝",
    failed: "服务故障",
  },

  patientCopy: "患者副本",
  patientCopyHint:
    "下载该患者本人全部数据的副本（zip：身份信息、全部结果、报告历史、危急值、查看记录），供患者依法申请时交付；下载本身会记入查看记录。",
  patientCopyPreparing: "正在生成副本…",
  patientCopySaved: (file) => `已下载患者副本 ${file}。`,
  patientCopyFailed: (why) => `患者副本下载失败：${why}`,
};

export const trustEn: TrustTexts = {
  signInWith: (provider) => `Sign in with ${provider}`,
  signInWithHint: "Use your hospital account; your roles and wards come from the hospital's identity provider.",
  orWithToken: "Sign in with a personal access token (when the hospital's sign-in cannot be used)",
  signedInAsPerson: (name, roles) => `${name} · ${roles}`,
  roleNames: {
    admin: "Administrator",
    author: "Report author",
    clinician: "Clinician",
    viewer: "Viewer",
    researcher: "Researcher",
    integrator: "Integrator",
  },
  noRole: "no role",
  wardsOf: (wards) => `wards ${wards}`,
  signingOut: "Signing out…",
  signOutFailed: "Signing out failed; try again.",
  notForRole: (role, opened) => `That page needs the role “${role}”; your own page, ${opened}, is open instead.`,

  credentials: "Credentials",
  credentialsIntro:
    "This tenant's author tokens and laboratory keys: who may do what, when each was last used and when it expires; revoke or rotate them here.",

  accessLog: "Who looked at this patient",
  accessLogTitle: (name) => `Who looked at ${name}`,
  accessLogIntro: (days) =>
    `Every answer of the last ${days} days that showed this patient's identity or results, newest first.`,
  noAccessRecords: "Nobody looked at this patient in this period.",
  accessColWhen: "When",
  accessColWho: "Who",
  accessColRoles: "Roles",
  accessColAction: "What",
  accessColOutcome: "Outcome",
  accessMore: (shown) =>
    `Only the latest ${shown} are shown; page through older ones with GET /api/patients/{patientRef}/access-log.`,
  actions: {
    "GET /api/patients": "Patient list",
    "GET /api/patients/{patientRef}": "Patient details",
    "GET /api/patients/{patientRef}/results": "Chart and results",
    "GET /api/patients/{patientRef}/result-items": "The items the chart can draw",
    "GET /api/patients/{patientRef}/copy": "Downloaded the patient's copy",
    "PUT /api/patients/{patientRef}": "Registered or changed the patient",
    "GET /api/alerts": "Critical results list",
    "GET /api/alerts/stream": "Live critical results",
    "POST /api/alerts/{alertId}/acknowledge": "Acknowledged a critical result",
    "GET /api/unmatched": "Unmatched reports",
    "GET /api/unmatched/{kind}/{externalId}/check": "Checked a patient before claiming",
    "POST /api/unmatched/{kind}/{externalId}/claim": "Claimed a report",
    "GET /api/history/{kind}/{externalId}": "Report history",
    "GET /api/history/{kind}/{externalId}/versions/{n}": "A report's earlier version",
    "GET /api/history/{kind}/{externalId}/diff": "Changes between report versions",
    "POST /api/reports/{id}/data": "Report data",
    "POST /api/reports/{id}/drill": "Report detail rows",
    "POST /api/reports/{id}/export/xlsx": "Excel export",
    "POST /api/reports/{id}/export/docx": "Word export",
    "GET /fhir/r4/Patient": "FHIR patient search",
    "GET /fhir/r4/Observation": "FHIR results search",
    "GET /fhir/r4/DiagnosticReport": "FHIR reports search",
  },
  outcomes: {
    shown: "shown",
    cut: "cut off",
    "not-found": "not found",
    invalid: "bad request",
    refused: "refused",
    failed: "service fault",
  },

  patientCopy: "Patient's copy",
  patientCopyHint:
    "Download a copy of all of this patient's own data (a zip: identity, every result, report histories, alerts, who looked) to hand to the patient who asks for it; the download itself is recorded in the access log.",
  patientCopyPreparing: "Preparing the copy…",
  patientCopySaved: (file) => `The patient's copy ${file} was downloaded.`,
  patientCopyFailed: (why) => `The patient's copy could not be downloaded: ${why}`,
};
