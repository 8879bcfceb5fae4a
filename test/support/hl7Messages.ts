/*
 * ORU^R01 messages as a Chinese hospital's laboratory system (LIS) sends them: the national id in
 * PID-3 with identifier type NNCHN beside the hospital's own patient id (PI), names and item
 * names in UTF-8, a numeric panel with reference ranges and flags, a qualitative result, and a
 * corrected report (OBR-25 C). Segments are joined with \r as the standard names it.
 */

export const ZHANG_SAN_ID = "11010519491231002X";

export function oruR01(
  overrides: {
    controlId?: string;
    externalId?: string;
    status?: string;
    version?: string;
    hgb?: string;
    idCard?: string;
  } = {},
): string {
  const {
    controlId = "LIS20260301001",
    externalId = "L20260301-0001",
    status = "F",
    version = "2.5.1",
    hgb = "112",
    idCard = ZHANG_SAN_ID,
  } = overrides;
  return [
    `MSH|^~\\&|LIS|协和医院检验科|DIALYSIS-HUB|血透中心|20260301101500+0800||ORU^R01^ORU_R01|${controlId}|P|${version}|||AL|NE|CHN|UNICODE UTF-8`,
    `PID|1||${idCard}^^^&2.16.156.10011.1.3&ISO^NNCHN~H-100001^^^协和医院^PI||张^三||19491231|M|||北京市东城区帅府园1号||13800138000`,
    "PV1|1|O|血透中心^^^协和医院",
    `ORC|RE|ORD-88231|${externalId}`,
    `OBR|1|ORD-88231|${externalId}|DLYM^透析月度检查^L|||20260301073000+0800|||||||20260301074500|SERUM^血清|1001^李^医生||||||20260301100000+0800|||${status}`,
    `OBX|1|NM|HGB^血红蛋白^L||${hgb}|g/L|115-150|L|||${status}|||20260301095000`,
    "OBX|2|NM|K^钾^L||5.6|mmol/L|3.5-5.5|H|||F",
    "OBX|3|NM|CRP^C反应蛋白^L||3.2|mg/L|<5|N|||F",
    "OBX|4|NM|ALB^白蛋白^L||38.5|g/L|>35|N|||F",
    "OBX|5|ST|HBSAG^乙肝表面抗原^L||阴性(-)||||||F",
    "OBX|6|CWE|ABO^ABO血型^L||A^A型^HL70005||||||F",
  ].join("\r");
}

/** oruR01() as the JSON push of the same report would send it. */
export function oruR01AsJson(externalId = "L20260301-0001") {
  return {
    externalId,
    reportNo: externalId,
    patient: { idCard: ZHANG_SAN_ID, hisPatientId: "H-100001", name: "张三" },
    panelName: "透析月度检查",
    collectedAt: "2026-03-01 07:30:00",
    reportedAt: "2026-03-01 10:00:00",
    status: "FINAL",
    items: [
      { itemCode: "HGB", itemName: "血红蛋白", value: 112, unit: "g/L", refLow: 115, refHigh: 150, abnormalFlag: "L" },
      { itemCode: "K", itemName: "钾", value: 5.6, unit: "mmol/L", refLow: 3.5, refHigh: 5.5, abnormalFlag: "H" },
      { itemCode: "CRP", itemName: "C反应蛋白", value: 3.2, unit: "mg/L", refHigh: 5, abnormalFlag: "N" },
      { itemCode: "ALB", itemName: "白蛋白", value: 38.5, unit: "g/L", refLow: 35, abnormalFlag: "N" },
      { itemCode: "HBSAG", itemName: "乙肝表面抗原", value: "阴性(-)", resultType: "QUALITATIVE" },
      { itemCode: "ABO", itemName: "ABO血型", value: "A", resultType: "QUALITATIVE" },
    ],
  };
}

/** The v2.3 message of an older LIS: the national id in PID-19 only, no OBR-22 (reported when sent, MSH-7). */
export function oruR01v23(externalId = "OLD-0001"): string {
  return [
    "MSH|^~\\&|OLDLIS|县医院|DH|血透|20260302083000||ORU^R01|OLD20260302083000|P|2.3",
    `PID|1||H-9^^^县医院||王^五||19600101|M|||||||||||${ZHANG_SAN_ID}`,
    `OBR|1||${externalId}|RENAL^肾功能|||202603020700`,
    "OBX|1|NM|CREA^肌酐||620|umol/L|57-111|H",
    "OBX|2|TX|NOTE^备注||样本轻度溶血\\T\\复查\\F\\已通知\\S\\张医生\\E\\",
  ].join("\r");
}

/** The message with `key` in MSH-8 (Security), where MLLP senders put the client key. */
export function withSecurity(er7: string, key: string): string {
  const [msh, ...rest] = er7.split("\r");
  const fields = msh!.split("|");
  fields[7] = key;
  return [fields.join("|"), ...rest].join("\r");
}
