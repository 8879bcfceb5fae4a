// The export formats' media types, apart from their writers: the writers (exceljs, docx, echarts)
// are loaded on the first export, not at start, and the OpenAPI document needs only the names.
export const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
