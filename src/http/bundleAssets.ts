import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { Context } from "koa";
import { projectFile } from "../../db/projectFiles.ts";

/**
 * The pages' bundles (`web/dist/`, built by `npm run build:web`, run by `prepare`).
 *
 * Only the files of a page's allow-list are ever read, and a request names an asset by its served
 * name (`embed.<hash>.js`), looked up in a map: nothing from a request is joined to a path.
 * The served name holds a hash of the content, so the files are cached for a year; a rebuilt
 * bundle (a newer mtime) is read again on the next page request and gets a new name.
 */
export const WEB_DIST_DIR = projectFile("web", "dist");

export interface AllowedAsset {
  file: string;
  type: string;
}

export interface BundleAsset {
  /** The name it is served under: `embed.<hash>.js`. */
  name: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export interface BundleAssets<File extends string> {
  /** Served URL per file of the allow-list, for the page's `<script>` and `<link>`. */
  urls: Record<File, string>;
  byName: Map<string, BundleAsset>;
}

/** One page's assets: `load(dir)` gives the built files, or null when the bundle has not been built. */
export function bundleAssets<const Allowed extends readonly AllowedAsset[]>(allowed: Allowed, urlPrefix: string) {
  type File = Allowed[number]["file"];
  let cached: { key: string; assets: BundleAssets<File> } | null = null;
  return function load(dir: string = WEB_DIST_DIR): BundleAssets<File> | null {
    let key = dir;
    try {
      for (const { file } of allowed) key += `|${statSync(path.join(dir, file)).mtimeMs}`;
    } catch {
      return null;
    }
    if (cached?.key === key) return cached.assets;
    const urls = {} as Record<File, string>;
    const byName = new Map<string, BundleAsset>();
    for (const { file, type } of allowed) {
      const body = readFileSync(path.join(dir, file));
      const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
      const dot = file.lastIndexOf(".");
      const name = `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
      byName.set(name, { name, type, body, gzip: gzipSync(body, { level: 9 }), etag: `"${hash}"` });
      urls[file as File] = `${urlPrefix}${name}`;
    }
    cached = { key, assets: { urls, byName } };
    return cached.assets;
  };
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

export const loadEmbedAssets = bundleAssets(
  [
    { file: "boot.js", type: JS },
    { file: "embed.js", type: JS },
    { file: "embed.css", type: CSS },
  ],
  "/embed/assets/",
);

export const loadStaffAssets = bundleAssets(
  [
    { file: "staff.js", type: JS },
    { file: "staffEditor.js", type: JS },
    { file: "staffChart.js", type: JS },
    { file: "staff.css", type: CSS },
  ],
  "/staff/assets/",
);

/** Answers with a static asset: ETag and 304, gzip when the client takes it. */
export function sendAsset(
  ctx: Context,
  asset: Pick<BundleAsset, "type" | "body" | "gzip" | "etag">,
  cacheControl: string,
): void {
  ctx.set("Cache-Control", cacheControl);
  ctx.set("ETag", asset.etag);
  ctx.vary("Accept-Encoding");
  ctx.type = asset.type;
  if (ctx.get("if-none-match") === asset.etag) {
    ctx.status = 304;
    return;
  }
  if (ctx.acceptsEncodings("gzip", "identity") === "gzip") {
    ctx.set("Content-Encoding", "gzip");
    ctx.body = asset.gzip;
  } else {
    ctx.body = asset.body;
  }
}

/**
 * `GET …/assets/:name`: one of a page's built files by its served name (a year of caching: the
 * name holds its hash), or 404. `headers` are set on a file served.
 */
export function bundleAssetRoute(
  load: (dir: string) => BundleAssets<string> | null,
  dir: string,
  headers: Record<string, string> = {},
) {
  return (ctx: Context & { params: Record<string, string> }): void => {
    ctx.set("X-Content-Type-Options", "nosniff");
    const asset = load(dir)?.byName.get(ctx.params.name!);
    if (!asset) {
      ctx.status = 404;
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "There is no such asset.";
      return;
    }
    ctx.set(headers);
    sendAsset(ctx, asset, "public, max-age=31536000, immutable");
  };
}
