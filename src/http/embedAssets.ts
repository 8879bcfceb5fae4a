import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/**
 * The embed page's bundle (`web/dist/`, built by `npm run build:web`, run by `prepare`).
 *
 * Only the files of ALLOWED are ever read, and a request names an asset by its served name
 * (`embed.<hash>.js`), looked up in a map: nothing from a request is joined to a path.
 * The served name holds a hash of the content, so the files are cached for a year; a rebuilt
 * bundle (a newer mtime) is read again on the next page request and gets a new name.
 */
export const WEB_DIST_DIR = fileURLToPath(new URL("../../web/dist/", import.meta.url));

const ALLOWED = [
  { file: "boot.js", type: "text/javascript; charset=utf-8" },
  { file: "embed.js", type: "text/javascript; charset=utf-8" },
  { file: "embed.css", type: "text/css; charset=utf-8" },
] as const;

export type AssetFile = (typeof ALLOWED)[number]["file"];

export interface EmbedAsset {
  /** The name it is served under: `embed.<hash>.js`. */
  name: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export interface EmbedAssets {
  /** Served name per file of the allow-list, for the page's `<script>` and `<link>`. */
  urls: Record<AssetFile, string>;
  byName: Map<string, EmbedAsset>;
}

let cached: { key: string; assets: EmbedAssets } | null = null;

/** The built assets, or null when the bundle has not been built. */
export function loadEmbedAssets(dir: string = WEB_DIST_DIR): EmbedAssets | null {
  let key = dir;
  try {
    for (const { file } of ALLOWED) key += `|${statSync(path.join(dir, file)).mtimeMs}`;
  } catch {
    return null;
  }
  if (cached?.key === key) return cached.assets;
  const urls = {} as Record<AssetFile, string>;
  const byName = new Map<string, EmbedAsset>();
  for (const { file, type } of ALLOWED) {
    const body = readFileSync(path.join(dir, file));
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
    const dot = file.lastIndexOf(".");
    const name = `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
    byName.set(name, { name, type, body, gzip: gzipSync(body, { level: 9 }), etag: `"${hash}"` });
    urls[file] = `/embed/assets/${name}`;
  }
  cached = { key, assets: { urls, byName } };
  return cached.assets;
}
