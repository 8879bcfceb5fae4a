/**
 * `GET /openapi.json` (the document of both interfaces, generated from the zod schemas) and
 * `GET /docs`, the document rendered by Swagger UI served from the `swagger-ui-dist` package: no
 * CDN. The page starts Swagger UI from a script file of ours (`docsInit.js`), not an inline
 * script, so its Content-Security-Policy allows scripts from this origin only.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { gzipSync } from "node:zlib";
import Router from "@koa/router";
import { projectFile } from "../../db/projectFiles.ts";
import { sendAsset } from "../http/bundleAssets.ts";
import { openApiDocument, type OpenApiDocumentSource } from "./openApiDocument/index.ts";

// Located, not loaded: requiring the package would load its 1.5 MB bundle into the service.
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The only files served below /docs/assets/: a request names one of these, never a path. */
const ASSETS: Record<string, { file: string; type: string }> = {
  "swagger-ui.css": { file: path.join(SWAGGER_UI_DIR, "swagger-ui.css"), type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": {
    file: path.join(SWAGGER_UI_DIR, "swagger-ui-bundle.js"),
    type: "text/javascript; charset=utf-8",
  },
  "favicon-32x32.png": { file: path.join(SWAGGER_UI_DIR, "favicon-32x32.png"), type: "image/png" },
  "docs-init.js": { file: projectFile("src", "docs", "docsInit.js"), type: "text/javascript; charset=utf-8" },
};

// Swagger UI sets element styles from script (allowed by style-src 'self'); it loads images as data: URLs.
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dialysis Hub API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/docs-init.js"></script></body>
</html>
`;

interface LoadedAsset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

export function docsRoutes(source: OpenApiDocumentSource): Router {
  const router = new Router();
  // Built on first request, once: generating it takes a few hundred milliseconds.
  let documentJson: string | undefined;
  const loaded = new Map<string, LoadedAsset>();

  router.get("/openapi.json", (ctx) => {
    documentJson ??= JSON.stringify(openApiDocument(source));
    ctx.type = "application/json; charset=utf-8";
    ctx.set("Cache-Control", "no-cache");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.body = documentJson;
  });

  router.get("/docs", (ctx) => {
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Referrer-Policy", "same-origin");
    ctx.type = "text/html; charset=utf-8";
    ctx.body = DOCS_PAGE;
  });

  router.get("/docs/assets/:file", (ctx) => {
    const name = ctx.params.file!;
    const known = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : undefined;
    ctx.set("X-Content-Type-Options", "nosniff");
    if (!known) {
      ctx.status = 404;
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "There is no such file; the documentation is at /docs.";
      return;
    }
    let asset = loaded.get(name);
    if (!asset) {
      const body = readFileSync(known.file);
      asset = {
        type: known.type,
        body,
        gzip: gzipSync(body),
        etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`,
      };
      loaded.set(name, asset);
    }
    sendAsset(ctx, asset, "no-cache");
  });
  return router;
}
