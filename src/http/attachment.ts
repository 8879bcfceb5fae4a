/**
 * `Content-Disposition` for a download whose name is often Chinese: an ASCII fallback in
 * `filename` and the real name in `filename*` (RFC 6266 / RFC 5987).
 */
export function attachment(fileName: string): string {
  const fallback = fileName
    .normalize("NFKD")
    .replace(/[^\x20-\x7e]/g, "_")
    .replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** `<title> v3 2026-03-01.xlsx` with characters no file system accepts replaced. */
export function exportFileName(title: string, version: string, date: string, extension: "xlsx" | "docx"): string {
  const safeTitle =
    title
      .replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_")
      .trim()
      .slice(0, 120) || "report";
  return `${safeTitle} ${version} ${date}.${extension}`;
}
