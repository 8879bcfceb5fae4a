import type { Lang } from "../types.ts";
import type { BulkFailureCode } from "../../commands/bulk/events.ts";
import type { LiveState } from "./alertStream.ts";
import { chartEn, chartZh, type ChartTexts } from "./chartTexts.ts";
import { claimEn, claimZh, type ClaimTexts } from "./claimTexts.ts";
import { queueEn, queueZh, type QueueTexts } from "./queueTexts.ts";
import { credentialsEn, credentialsZh, type CredentialsTexts } from "./credentialsTexts.ts";
import { errorEn, errorZh, type ErrorTexts } from "./errorTexts.ts";
import { trustEn, trustZh, type TrustTexts } from "./trustTexts.ts";
import { mappingEn, mappingZh, type MappingTexts } from "./mappingTexts.ts";
import { deltaEn, deltaZh, type DeltaTexts } from "./deltaTexts.ts";
import { accessLogEn, accessLogZh, type AccessLogTexts } from "./accessLogTexts.ts";
import { phoneChartEn, phoneChartZh, type PhoneChartTexts } from "./phoneChartTexts.ts";
import { qualityEn, qualityZh, type QualityTexts } from "./qualityTexts.ts";
import { escalationEn, escalationZh, type EscalationTexts } from "./escalationTexts.ts";

/** The staff pages' own words; what the service says (`{ error }` sentences) is shown as sent, unless its `code` has words here (errorTexts.ts). */
export interface StaffTexts
  extends
    TrustTexts,
    CredentialsTexts,
    ChartTexts,
    ClaimTexts,
    QueueTexts,
    ErrorTexts,
    MappingTexts,
    DeltaTexts,
    AccessLogTexts,
    PhoneChartTexts,
    QualityTexts,
    EscalationTexts {
  appTitle: string;
  otherLanguage: string;
  nav: string;
  skipToContent: string;
  reports: string;
  unmatched: string;
  patients: string;
  bulkJobs: string;
  signOut: string;
  /** The link to the help articles (/help) on every page. */
  help: string;
  signedInAs: (tenant: string, token: string) => string;

  signInTitle: string;
  signInIntro: string;
  /** Under the token form: the operator's own way in. */
  signInOperator: string;
  token: string;
  tokenHint: string;
  tenant: string;
  tenantHint: string;
  tenantFixed: string;
  signIn: string;
  signingIn: string;
  tokenMissing: string;
  tenantInvalid: string;
  rejected401: string;
  rejected403: string;
  sessionEnded: string;

  loading: string;
  loadFailed: string;
  retry: string;
  networkFailed: string;
  requestFailed: (status: number) => string;
  close: string;
  cancel: string;
  yes: string;
  no: string;

  reportsIntro: string;
  noReports: string;
  reportMeta: (id: string, datasource: string, updatedAt: string) => string;
  published: (version: string) => string;
  neverPublished: string;
  hasDraft: string;
  openCurrent: string;
  openDraft: string;
  versionsOf: (title: string) => string;
  noVersions: string;
  colVersion: string;
  colTime: string;
  colWho: string;
  colNote: string;
  colMode: string;
  colAudit: string;
  colActions: string;
  current: string;
  modes: Record<string, string>;
  auditSummary: (score: number, highest: string, findings: number) => string;
  open: string;
  openVersion: (version: string) => string;
  findings: string;
  findingsOf: (version: string) => string;
  noFindings: string;
  severities: Record<string, string>;

  unmatchedIntro: string;
  queueEmpty: string;
  queueCount: (count: number) => string;
  /** The first `count` of a queue longer than one page are shown (contract E.6). */
  queueCountMore: (count: number) => string;
  /** Reads the next page of a long list. */
  showMore: string;
  colKind: string;
  colReport: string;
  colPatientSent: string;
  colReason: string;
  colReceived: string;
  kinds: Record<string, string>;
  reportNo: (no: string) => string;
  hisId: (id: string) => string;
  claim: string;
  claimButton: string;
  claimTitle: (externalId: string) => string;
  claimFor: (externalId: string) => string;
  claiming: string;
  claimed: (externalId: string, patient: string) => string;
  choosePatient: string;
  dismiss: string;
  dismissButton: string;
  dismissTitle: (externalId: string) => string;
  dismissFor: (externalId: string) => string;
  reason: string;
  reasonHint: string;
  reasonMissing: string;
  dismissing: string;
  dismissed: (externalId: string) => string;
  history: string;
  historyFor: (externalId: string) => string;
  historyTitle: (externalId: string) => string;
  colWhen: string;
  colEvent: string;
  colBy: string;
  colDetails: string;
  events: Record<string, string>;
  statuses: Record<string, string>;
  versionNo: (n: number) => string;
  patientOf: (patientRef: string) => string;
  viewVersion: (n: number) => string;
  changesOf: (n: number) => string;
  versionTitle: (n: number) => string;
  changesTitle: (from: number, to: number) => string;
  noChanges: string;
  colField: string;
  colBefore: string;
  colAfter: string;
  absent: string;

  patientsIntro: string;
  search: string;
  searchLabel: string;
  searchHint: string;
  searching: string;
  noPatients: string;
  noMatches: (q: string) => string;
  patientCount: (count: number) => string;
  patientCountMore: (count: number) => string;
  colPatientRef: string;
  colName: string;
  colIdCard: string;
  colHisId: string;
  colWard: string;
  colActive: string;
  register: string;
  registerTitle: string;
  edit: string;
  editFor: (name: string) => string;
  editTitle: (patientRef: string) => string;
  patientRef: string;
  patientRefHint: string;
  name: string;
  idCard: string;
  idCardHint: string;
  idCardReenter: (masked: string) => string;
  hisPatientId: string;
  ward: string;
  active: string;
  save: string;
  saving: string;
  saved: (patientRef: string, name: string) => string;
  fieldMissing: (label: string) => string;

  bulkJobsIntro: string;
  noJobs: string;
  jobCount: (count: number) => string;
  autoRefresh: string;
  refresh: string;
  number: (n: number) => string;
  jobNo: (shortId: string) => string;
  colSubmitted: string;
  colClient: string;
  colStatus: string;
  colProgress: string;
  colAccepted: string;
  colCreated: string;
  colUpdated: string;
  colUnchanged: string;
  colUnmatched: string;
  colRejected: string;
  colRun: string;
  started: string;
  finished: string;
  jobStatuses: Record<string, string>;
  /** Why a FAILED job stopped, by its code (issue #54); `processed`: the lines handled, which are stored. */
  jobFailures: Record<BulkFailureCode, (processed: string) => string>;
  /** A failed job without a code (none known to this page): the service's sentence is not shown. */
  jobFailedOtherwise: string;
  progressOf: (shortId: string) => string;
  jobEnded: (shortId: string, status: string, accepted: number, rejected: number) => string;
  rejectedLines: string;
  rejectedLinesOf: (shortId: string) => string;
  colLine: string;
  colExternalId: string;
  colProblem: string;
  wholeLine: string;
  linesShown: (from: number, to: number, total: number) => string;
  noRejected: string;
  rejectedPages: string;
  previousPage: string;
  nextPage: string;

  alerts: string;
  openAlertsBadge: (count: number) => string;
  alertsIntro: string;
  alertStates: Record<"open" | "acknowledged" | "closed" | "info", string>;
  alertStateTabs: string;
  noAlerts: Record<"open" | "acknowledged" | "closed" | "info", string>;
  alertCount: (count: number) => string;
  colRaised: string;
  colPatient: string;
  colResult: string;
  colWhy: string;
  colAcknowledged: string;
  colClosed: string;
  acknowledge: string;
  acknowledgeFor: (patient: string, item: string) => string;
  acknowledgeTitle: (patient: string, item: string) => string;
  acknowledgeIntro: string;
  note: string;
  noteHint: string;
  noteMissing: string;
  acknowledging: string;
  acknowledged: (patient: string, item: string) => string;
  newAlert: (patient: string, item: string, value: string) => string;
  /** The alert stream's state beside the alerts: opening, open, lost. */
  liveStates: Record<LiveState, string>;
  reasons: (reason: string) => string;
  chart: string;
  editor: string;
  newReport: string;
  editReport: (title: string) => string;
  chartFor: (name: string) => string;
  chartTitle: (name: string, patientRef: string) => string;
  chartIntro: string;
  period: string;
  periods: Record<"1" | "3" | "5", string>;
  tableView: string;
  chartView: string;
  latest: string;
  noResults: string;
  refRange: string;
  targetBand: string;
  criticalLimits: string;
  seriesSummary: (name: string, count: number, latest: string) => string;
  colValue: string;
  colFlag: string;
  patientReports: string;
  noPatientReports: string;
  backToPatients: string;
}

const zh: StaffTexts = {
  ...trustZh,
  ...credentialsZh,
  ...chartZh,
  ...claimZh,
  ...queueZh,
  ...mappingZh,
  ...deltaZh,
  ...errorZh,
  ...accessLogZh,
  ...phoneChartZh,
  ...qualityZh,
  ...escalationZh,
  appTitle: "透析中心 · 工作台",
  otherLanguage: "English",
  nav: "工作台导航",
  skipToContent: "跳到正文",
  reports: "报表",
  unmatched: "待认领报告",
  patients: "患者",
  bulkJobs: "批量导入",
  signOut: "退出",
  help: "帮助",
  signedInAs: (tenant, token) => `租户 ${tenant} · 令牌 ${token}`,

  signInTitle: "登录工作台",
  signInIntro:
    "请粘贴您的个人访问令牌：由本院管理员在工作台的“凭据”页为您创建，以 dha_ 开头。令牌只保存在本浏览器标签页中，关闭即清除。",
  signInOperator: "服务的运维人员也可以用服务的管理员令牌登录。",
  token: "个人访问令牌",
  tokenHint: "以 dha_ 开头；没有令牌请向本院管理员索取。",
  tenant: "租户",
  tenantHint: "令牌所属的医院或中心，例如 demo。",
  tenantFixed: "由反向代理设定，不可更改。",
  signIn: "登录",
  signingIn: "正在验证…",
  tokenMissing: "请粘贴令牌。",
  tenantInvalid: "租户名称须为 1 至 64 个字母、数字、'_' 或 '-'。",
  rejected401: "此令牌无法登录：可能粘贴不完整、已过期或已被吊销。请重新粘贴，或请管理员在“凭据”页为您新建一个。",
  rejected403: "此令牌属于另一家医院或中心：请填写它所属的租户，或使用本租户的令牌。",
  sessionEnded: "会话已失效，请重新登录。",

  loading: "加载中…",
  loadFailed: "加载失败",
  retry: "重试",
  networkFailed: "无法连接服务，请检查网络后重试。",
  requestFailed: (status) => `请求失败（HTTP ${status}）。`,
  close: "关闭",
  cancel: "取消",
  yes: "是",
  no: "否",

  reportsIntro: "本租户的全部报表及其版本、模式和审核评级。点击版本可打开其嵌入页面。",
  noReports: "还没有报表。",
  reportMeta: (id, datasource, updatedAt) => `${id} · 数据源 ${datasource} · 更新于 ${updatedAt}`,
  published: (version) => `已发布 ${version}`,
  neverPublished: "从未发布",
  hasDraft: "有草稿",
  openCurrent: "打开当前版本",
  openDraft: "打开草稿",
  versionsOf: (title) => `${title} 的版本`,
  noVersions: "尚无已发布的版本。",
  colVersion: "版本",
  colTime: "发布时间",
  colWho: "发布人",
  colNote: "说明",
  colMode: "模式",
  colAudit: "审核",
  colActions: "操作",
  current: "当前",
  modes: { dynamic: "动态", snapshot: "快照" },
  auditSummary: (score, highest, findings) => `${score} 分 · 最高级别 ${highest} · ${findings} 项发现`,
  open: "打开",
  openVersion: (version) => `打开 ${version} 的嵌入页面（新标签页）`,
  findings: "审核发现",
  findingsOf: (version) => `${version} 的审核发现`,
  noFindings: "没有发现问题。",
  severities: { none: "无", info: "提示", low: "低", medium: "中", high: "高", critical: "严重" },

  unmatchedIntro: "未能匹配到透析患者的检验、检查报告。认领给一位患者，或说明理由后搁置（报告仍会保留以备审计）。",
  queueEmpty: "没有待认领的报告。",
  queueCount: (count) => `共 ${count} 份待认领`,
  queueCountMore: (count) => `已显示最早的 ${count} 份待认领，还有更多`,
  showMore: "显示更多",
  colKind: "类型",
  colReport: "报告",
  colPatientSent: "报告中的患者",
  colReason: "原因",
  colReceived: "接收时间",
  kinds: { lab: "检验", exam: "检查" },
  reportNo: (no) => `报告号 ${no}`,
  hisId: (id) => `HIS ${id}`,
  claim: "认领…",
  claimButton: "认领",
  claimTitle: (externalId) => `认领报告 ${externalId}`,
  claimFor: (externalId) => `认领报告 ${externalId}`,
  claiming: "正在认领…",
  claimed: (externalId, patient) => `报告 ${externalId} 已认领给 ${patient}。`,
  choosePatient: "请先选择一位患者。",
  dismiss: "搁置…",
  dismissButton: "搁置",
  dismissTitle: (externalId) => `搁置报告 ${externalId}`,
  dismissFor: (externalId) => `搁置报告 ${externalId}`,
  reason: "理由",
  reasonHint: "例如：非本中心透析患者。报告会保留，并计入对账。",
  reasonMissing: "请填写搁置理由。",
  dismissing: "正在搁置…",
  dismissed: (externalId) => `报告 ${externalId} 已搁置。`,
  history: "历史",
  historyFor: (externalId) => `报告 ${externalId} 的历史`,
  historyTitle: (externalId) => `报告 ${externalId} 的历史`,
  colWhen: "时间",
  colEvent: "事件",
  colBy: "操作者",
  colDetails: "详情",
  events: {
    RECEIVED: "收到",
    CLAIMED: "认领",
    DISMISSED: "搁置",
    REQUEUED: "退回待认领",
    ALERT_RAISED: "危急值提醒",
    ALERT_ACKNOWLEDGED: "危急值确认",
    ALERT_CLOSED: "危急值关闭",
    REMAPPED: "项目重新映射",
  },
  statuses: { CREATED: "新建", UPDATED: "更新" },
  versionNo: (n) => `第 ${n} 版`,
  patientOf: (patientRef) => `患者 ${patientRef}`,
  viewVersion: (n) => `查看第 ${n} 版`,
  changesOf: (n) => `第 ${n} 版的改动`,
  versionTitle: (n) => `第 ${n} 版（收到时的原样）`,
  changesTitle: (from, to) => `第 ${from} 版 → 第 ${to} 版`,
  noChanges: "两版内容相同。",
  colField: "字段",
  colBefore: "之前",
  colAfter: "之后",
  absent: "（无）",

  patientsIntro: "本租户登记的透析患者。身份证号只显示前 6 位和后 4 位。",
  search: "搜索",
  searchLabel: "搜索患者",
  searchHint: "姓名、患者编号、HIS 号，或身份证号的可见部分（如 110105********002X）。",
  searching: "搜索中…",
  noPatients: "还没有登记患者。",
  noMatches: (q) => `没有与“${q}”匹配的患者。`,
  patientCount: (count) => `共 ${count} 位患者`,
  patientCountMore: (count) => `已显示 ${count} 位患者，还有更多`,
  colPatientRef: "患者编号",
  colName: "姓名",
  colIdCard: "身份证号",
  colHisId: "HIS 号",
  colWard: "病区",
  colActive: "在透",
  register: "登记患者",
  registerTitle: "登记新患者",
  edit: "编辑",
  editFor: (name) => `编辑 ${name}`,
  editTitle: (patientRef) => `编辑患者 ${patientRef}`,
  patientRef: "患者编号",
  patientRefHint: "字母或数字开头，最多 64 个字母、数字、'_'、'.' 或 '-'；登记后不可更改。",
  name: "姓名",
  idCard: "身份证号",
  idCardHint: "18 位居民身份证号。登记后会自动认领持此身份证号的待认领报告。",
  idCardReenter: (masked) => `列表中只显示 ${masked}：保存时请重新输入完整的 18 位号码。`,
  hisPatientId: "HIS 号（可选）",
  ward: "病区（可选）",
  active: "在透（仍在本中心透析）",
  save: "保存",
  saving: "正在保存…",
  saved: (patientRef, name) => `患者 ${patientRef}（${name}）已保存。`,
  fieldMissing: (label) => `请填写${label}。`,

  bulkJobsIntro:
    "检验、检查系统通过开放接口（NDJSON）或命令行提交的后台批量导入任务，列出最新的 200 个。有任务排队或进行中时，本页每 2 秒自动更新。",
  noJobs: "还没有批量导入任务。",
  jobCount: (count) => `共 ${count} 个任务`,
  autoRefresh: "每 2 秒自动更新",
  refresh: "刷新",
  number: (n) => n.toLocaleString("zh-CN"),
  jobNo: (shortId) => `任务 ${shortId}`,
  colSubmitted: "提交时间",
  colClient: "发送系统",
  colStatus: "状态",
  colProgress: "进度",
  colAccepted: "接收",
  colCreated: "新建",
  colUpdated: "更新",
  colUnchanged: "未变",
  colUnmatched: "待认领",
  colRejected: "拒收",
  colRun: "开始 / 结束",
  started: "开始",
  finished: "结束",
  jobStatuses: { QUEUED: "排队中", RUNNING: "进行中", DONE: "已完成", FAILED: "失败" },
  jobFailures: {
    "client-gone": () => "提交此任务的检验科已不存在，任务未导入。请用现有的检验科密钥重新提交。",
    "piece-failed": (processed) =>
      `服务无法导入其中一段，任务已停止；已处理的 ${processed} 行已保存。请把任务编号告知服务的运维人员。`,
  },
  jobFailedOtherwise: "任务已停止。请把任务编号告知服务的运维人员。",
  progressOf: (shortId) => `任务 ${shortId} 的进度`,
  jobEnded: (shortId, status, accepted, rejected) =>
    status === "DONE" ? `任务 ${shortId} 已完成：接收 ${accepted} 行，拒收 ${rejected} 行。` : `任务 ${shortId} 失败。`,
  rejectedLines: "拒收行…",
  rejectedLinesOf: (shortId) => `任务 ${shortId} 的拒收行`,
  colLine: "行号",
  colExternalId: "externalId",
  colProblem: "问题",
  wholeLine: "（整行）",
  linesShown: (from, to, total) => `第 ${from}–${to} 条，共 ${total} 条拒收行`,
  noRejected: "没有拒收行。",
  rejectedPages: "拒收行分页",
  previousPage: "上一页",
  nextPage: "下一页",

  alerts: "结果提醒",
  openAlertsBadge: (count) => `${count} 条危急值待确认`,
  alertsIntro: "需要临床处理的检验结果：危急值和差值核查。确认时写下处理经过，它会记入报告历史。",
  alertStates: { open: "待确认", acknowledged: "已确认", closed: "已关闭", info: "仅供参考" },
  alertStateTabs: "提醒状态",
  noAlerts: {
    open: "没有待确认的危急值。",
    acknowledged: "还没有确认过的危急值。",
    closed: "没有未经确认即关闭的危急值。",
    info: "没有仅供参考的变化。",
  },
  alertCount: (count) => `共 ${count} 条`,
  colRaised: "提醒时间",
  colPatient: "患者",
  colResult: "结果",
  colWhy: "原因",
  colAcknowledged: "确认",
  colClosed: "关闭",
  acknowledge: "确认",
  acknowledgeFor: (patient, item) => `确认 ${patient} 的 ${item}`,
  acknowledgeTitle: (patient, item) => `确认危急值：${patient} · ${item}`,
  acknowledgeIntro: "写下已做的处理（通知了谁、复查、调整方案），它会记入报告历史。",
  note: "处理经过",
  noteHint: "必填，最多 1000 字。",
  noteMissing: "请写下处理经过。",
  acknowledging: "正在确认…",
  acknowledged: (patient, item) => `已确认 ${patient} 的 ${item}。`,
  newAlert: (patient, item, value) => `新危急值：${patient} ${item} ${value}`,
  liveStates: { connecting: "正在连接实时更新…", live: "实时更新中", lost: "实时更新已断开，正在重连…" },
  reasons: (reason) =>
    reason
      .replace(/^flagged (LL|HH) by the laboratory$/, "实验室标记为 $1")
      .replace(/^above the critical limit (.+)$/, "高于危急界限 $1")
      .replace(/^below the critical limit (.+)$/, "低于危急界限 $1")
      .replace(/^an update of the report no longer holds this critical value$/, "报告更新后不再是危急值")
      .replace(
        /^.*delta limit$|^changed by .*$|^the (result is critical as well|value is back inside|change is an alert) .*$/,
        deltaZh.deltaReasons,
      ),
  chart: "检验趋势",
  editor: "报表编辑",
  newReport: "新建报表",
  editReport: (title) => `编辑 ${title}`,
  chartFor: (name) => `${name} 的检验趋势`,
  chartTitle: (name, patientRef) => `${name}（${patientRef}）的检验趋势`,
  chartIntro:
    "核心透析指标及您选择的其他项目随时间的变化（标准单位）。灰色带为参考范围，绿色带为 KDIGO / KDOQI 目标，红线为危急界限。",
  period: "时间范围",
  periods: { "1": "近 1 年", "3": "近 3 年", "5": "近 5 年" },
  tableView: "表格",
  chartView: "图表",
  latest: "最新",
  noResults: "此期间没有结果。",
  refRange: "参考范围",
  targetBand: "目标",
  criticalLimits: "危急界限",
  seriesSummary: (name, count, latest) => `${name}：${count} 个结果${latest ? `，最新 ${latest}` : ""}`,
  colValue: "数值",
  colFlag: "标记",
  patientReports: "此期间的报告",
  noPatientReports: "此期间没有报告。",
  backToPatients: "返回患者列表",
};

const en: StaffTexts = {
  ...trustEn,
  ...credentialsEn,
  ...chartEn,
  ...claimEn,
  ...queueEn,
  ...mappingEn,
  ...deltaEn,
  ...errorEn,
  ...accessLogEn,
  ...phoneChartEn,
  ...qualityEn,
  ...escalationEn,
  appTitle: "Dialysis Hub · Staff",
  otherLanguage: "中文",
  nav: "Staff pages",
  skipToContent: "Skip to content",
  reports: "Reports",
  unmatched: "Unmatched reports",
  patients: "Patients",
  bulkJobs: "Bulk jobs",
  signOut: "Sign out",
  help: "Help",
  signedInAs: (tenant, token) => `Tenant ${tenant} · token ${token}`,

  signInTitle: "Sign in",
  signInIntro:
    "Paste your personal access token: your hospital's administrator makes it for you on the Credentials page of these pages, and it starts with dha_. It is kept in this browser tab only and forgotten when the tab closes.",
  signInOperator: "The service's operator may sign in with the service's administrator token too.",
  token: "Personal access token",
  tokenHint: "It starts with dha_; if you have none, ask your hospital's administrator for one.",
  tenant: "Tenant",
  tenantHint: "The hospital or centre the token belongs to, e.g. demo.",
  tenantFixed: "Set by the reverse proxy; it cannot be changed here.",
  signIn: "Sign in",
  signingIn: "Checking…",
  tokenMissing: "Paste a token.",
  tenantInvalid: "The tenant must be 1 to 64 letters, digits, '_' or '-'.",
  rejected401:
    "This token does not sign you in: it may have been pasted in part, have expired or have been revoked. Paste it again, or ask your administrator to make you a new one on the Credentials page.",
  rejected403:
    "This token belongs to another hospital or centre: give the tenant it belongs to, or use a token of this one.",
  sessionEnded: "The session has ended; sign in again.",

  loading: "Loading…",
  loadFailed: "Could not load",
  retry: "Try again",
  networkFailed: "The service cannot be reached; check the network and try again.",
  requestFailed: (status) => `The request failed (HTTP ${status}).`,
  close: "Close",
  cancel: "Cancel",
  yes: "Yes",
  no: "No",

  reportsIntro:
    "Every report of this tenant with its versions, modes and audit grades. Open a version to see its embed page.",
  noReports: "There are no reports yet.",
  reportMeta: (id, datasource, updatedAt) => `${id} · data source ${datasource} · updated ${updatedAt}`,
  published: (version) => `Published ${version}`,
  neverPublished: "Never published",
  hasDraft: "Draft",
  openCurrent: "Open current version",
  openDraft: "Open draft",
  versionsOf: (title) => `Versions of ${title}`,
  noVersions: "No published versions yet.",
  colVersion: "Version",
  colTime: "Published",
  colWho: "By",
  colNote: "Note",
  colMode: "Mode",
  colAudit: "Audit",
  colActions: "Actions",
  current: "current",
  modes: { dynamic: "dynamic", snapshot: "snapshot" },
  auditSummary: (score, highest, findings) =>
    `score ${score} · highest ${highest} · ${findings} finding${findings === 1 ? "" : "s"}`,
  open: "Open",
  openVersion: (version) => `Open the embed page of ${version} (new tab)`,
  findings: "Findings",
  findingsOf: (version) => `Audit findings of ${version}`,
  noFindings: "No findings.",
  severities: { none: "none", info: "info", low: "low", medium: "medium", high: "high", critical: "critical" },

  unmatchedIntro:
    "Laboratory and examination reports that matched no dialysis patient. Claim each for a patient, or dismiss it with a reason (it stays stored for audit).",
  queueEmpty: "No reports are waiting.",
  queueCount: (count) => `${count} waiting`,
  queueCountMore: (count) => `The oldest ${count} waiting are shown; more are waiting`,
  showMore: "Show more",
  colKind: "Kind",
  colReport: "Report",
  colPatientSent: "Patient as sent",
  colReason: "Reason",
  colReceived: "Received",
  kinds: { lab: "lab", exam: "exam" },
  reportNo: (no) => `report no. ${no}`,
  hisId: (id) => `HIS ${id}`,
  claim: "Claim…",
  claimButton: "Claim",
  claimTitle: (externalId) => `Claim report ${externalId}`,
  claimFor: (externalId) => `Claim report ${externalId}`,
  claiming: "Claiming…",
  claimed: (externalId, patient) => `Report ${externalId} was claimed for ${patient}.`,
  choosePatient: "Choose a patient first.",
  dismiss: "Dismiss…",
  dismissButton: "Dismiss",
  dismissTitle: (externalId) => `Dismiss report ${externalId}`,
  dismissFor: (externalId) => `Dismiss report ${externalId}`,
  reason: "Reason",
  reasonHint: "E.g. not a dialysis patient of this centre. The report stays stored and counted in reconciliation.",
  reasonMissing: "Give a reason for dismissing the report.",
  dismissing: "Dismissing…",
  dismissed: (externalId) => `Report ${externalId} was dismissed.`,
  history: "History",
  historyFor: (externalId) => `History of report ${externalId}`,
  historyTitle: (externalId) => `History of report ${externalId}`,
  colWhen: "When",
  colEvent: "What",
  colBy: "By",
  colDetails: "Details",
  events: {
    RECEIVED: "Received",
    CLAIMED: "Claimed",
    DISMISSED: "Dismissed",
    REQUEUED: "Back in the queue",
    ALERT_RAISED: "Critical result raised",
    ALERT_ACKNOWLEDGED: "Critical result acknowledged",
    ALERT_CLOSED: "Critical result closed",
    REMAPPED: "Items re-mapped",
  },
  statuses: { CREATED: "new", UPDATED: "update" },
  versionNo: (n) => `version ${n}`,
  patientOf: (patientRef) => `patient ${patientRef}`,
  viewVersion: (n) => `View version ${n}`,
  changesOf: (n) => `Changes in version ${n}`,
  versionTitle: (n) => `Version ${n}, as received`,
  changesTitle: (from, to) => `Version ${from} → version ${to}`,
  noChanges: "The two versions are the same.",
  colField: "Field",
  colBefore: "Before",
  colAfter: "After",
  absent: "(none)",

  patientsIntro:
    "The dialysis patients registered for this tenant. Id cards show their first 6 and last 4 characters only.",
  search: "Search",
  searchLabel: "Search patients",
  searchHint: "Name, patientRef, HIS id, or the visible part of the id card (e.g. 110105********002X).",
  searching: "Searching…",
  noPatients: "No patients are registered yet.",
  noMatches: (q) => `No patient matches “${q}”.`,
  patientCount: (count) => `${count} patient${count === 1 ? "" : "s"}`,
  patientCountMore: (count) => `${count} patients shown; there are more`,
  colPatientRef: "patientRef",
  colName: "Name",
  colIdCard: "Id card",
  colHisId: "HIS id",
  colWard: "Ward",
  colActive: "Active",
  register: "Register a patient",
  registerTitle: "Register a patient",
  edit: "Edit",
  editFor: (name) => `Edit ${name}`,
  editTitle: (patientRef) => `Edit patient ${patientRef}`,
  patientRef: "patientRef",
  patientRefHint: "Starts with a letter or digit; up to 64 letters, digits, '_', '.' or '-'. It cannot change later.",
  name: "Name",
  idCard: "Id card",
  idCardHint: "The 18-character national identity number. Registering claims the waiting reports with this id card.",
  idCardReenter: (masked) => `The list shows ${masked} only: type the whole 18-character number again to save.`,
  hisPatientId: "HIS id (optional)",
  ward: "Ward (optional)",
  active: "Active (still on dialysis here)",
  save: "Save",
  saving: "Saving…",
  saved: (patientRef, name) => `Patient ${patientRef} (${name}) was saved.`,
  fieldMissing: (label) => `Fill in ${label}.`,

  bulkJobsIntro:
    "Background imports sent by laboratory and examination systems (NDJSON over the open API, or the command line); the newest 200 are listed. While a job is queued or running, this page updates itself every 2 seconds.",
  noJobs: "There are no bulk jobs yet.",
  jobCount: (count) => `${count} job${count === 1 ? "" : "s"}`,
  autoRefresh: "updating every 2 seconds",
  refresh: "Refresh",
  number: (n) => n.toLocaleString("en"),
  jobNo: (shortId) => `job ${shortId}`,
  colSubmitted: "Submitted",
  colClient: "Client",
  colStatus: "Status",
  colProgress: "Progress",
  colAccepted: "Accepted",
  colCreated: "Created",
  colUpdated: "Updated",
  colUnchanged: "Unchanged",
  colUnmatched: "Unmatched",
  colRejected: "Rejected",
  colRun: "Started / finished",
  started: "started",
  finished: "finished",
  jobStatuses: { QUEUED: "Queued", RUNNING: "Running", DONE: "Done", FAILED: "Failed" },
  jobFailures: {
    "client-gone": () =>
      "The laboratory that submitted the job no longer exists; nothing was imported. Submit it again with a current key.",
    "piece-failed": (processed) =>
      `The service could not import a part of the job and stopped it; the ${processed} lines handled before are stored. Tell the service's operators the job's number.`,
  },
  jobFailedOtherwise: "The job stopped. Tell the service's operators the job's number.",
  progressOf: (shortId) => `Progress of job ${shortId}`,
  jobEnded: (shortId, status, accepted, rejected) =>
    status === "DONE"
      ? `Job ${shortId} is done: ${accepted} accepted, ${rejected} rejected.`
      : `Job ${shortId} failed.`,
  rejectedLines: "Rejected lines…",
  rejectedLinesOf: (shortId) => `Rejected lines of job ${shortId}`,
  colLine: "Line",
  colExternalId: "externalId",
  colProblem: "Problem",
  wholeLine: "(the whole line)",
  linesShown: (from, to, total) => `Lines ${from}–${to} of ${total} rejected`,
  noRejected: "No rejected lines.",
  rejectedPages: "Pages of rejected lines",
  previousPage: "Previous",
  nextPage: "Next",

  alerts: "Result alerts",
  openAlertsBadge: (count) => `${count} critical ${count === 1 ? "result" : "results"} to acknowledge`,
  alertsIntro:
    "Results that need a clinician's attention: critical values and delta checks. Acknowledge each with what was done; it goes into the report's history.",
  alertStates: { open: "To acknowledge", acknowledged: "Acknowledged", closed: "Closed", info: "For information" },
  alertStateTabs: "Alert states",
  noAlerts: {
    open: "No critical result waits to be acknowledged.",
    acknowledged: "No critical result has been acknowledged yet.",
    closed: "No alert was closed before anyone acknowledged it.",
    info: "No change is shown for information.",
  },
  alertCount: (count) => `${count} ${count === 1 ? "alert" : "alerts"}`,
  colRaised: "Raised",
  colPatient: "Patient",
  colResult: "Result",
  colWhy: "Why",
  colAcknowledged: "Acknowledged",
  colClosed: "Closed",
  acknowledge: "Acknowledge",
  acknowledgeFor: (patient, item) => `Acknowledge ${item} of ${patient}`,
  acknowledgeTitle: (patient, item) => `Acknowledge a critical result: ${patient} · ${item}`,
  acknowledgeIntro:
    "Say what was done (who was told, a repeat test, a change of prescription); it goes into the report's history.",
  note: "What was done",
  noteHint: "Required, at most 1000 characters.",
  noteMissing: "Say what was done.",
  acknowledging: "Acknowledging…",
  acknowledged: (patient, item) => `${item} of ${patient} acknowledged.`,
  newAlert: (patient, item, value) => `New critical result: ${patient} ${item} ${value}`,
  liveStates: { connecting: "Connecting to live updates…", live: "Live", lost: "Live updates lost; reconnecting…" },
  reasons: (reason) => reason,
  chart: "Results",
  editor: "Report editor",
  newReport: "New report",
  editReport: (title) => `Edit ${title}`,
  chartFor: (name) => `Results of ${name}`,
  chartTitle: (name, patientRef) => `Results of ${name} (${patientRef})`,
  chartIntro:
    "The core dialysis items, and any other you choose, over time, in standard units. Grey: the reference range; green: the KDIGO / KDOQI target; red lines: the critical limits.",
  period: "Period",
  periods: { "1": "Last year", "3": "Last 3 years", "5": "Last 5 years" },
  tableView: "Table",
  chartView: "Charts",
  latest: "Latest",
  noResults: "No results in this period.",
  refRange: "Reference range",
  targetBand: "Target",
  criticalLimits: "Critical limits",
  seriesSummary: (name, count, latest) =>
    `${name}: ${count} ${count === 1 ? "result" : "results"}${latest ? `, latest ${latest}` : ""}`,
  colValue: "Value",
  colFlag: "Flag",
  patientReports: "Reports in this period",
  noPatientReports: "No reports in this period.",
  backToPatients: "Back to the patients",
};

export function staffTextsFor(lang: Lang): StaffTexts {
  return lang === "en" ? en : zh;
}
