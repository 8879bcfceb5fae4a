import { expect } from "chai";
import fc from "fast-check";
import { allProjections } from "../../src/app/allProjections.ts";
import { rawHttpClient, type RawHttpClient } from "../support/rawHttp.ts";
import { TEST_ADMIN_TOKEN, useTestService } from "../support/service.ts";
import { fuzzTally } from "./support/fuzzing.ts";

/**
 * No path below the pages that serve files (/md/, /embed/, /docs/, /staff/) reaches a file it
 * should not (contract A.1 rule 5). The /md/ cases written out one by one are in
 * test/http/help.test.ts ("answers 404 to path traversal attempts"); here every prefix is tried
 * with generated combinations of dot segments, encodings, backslashes and NUL bytes.
 */

const PREFIXES = [
  "/md/",
  "/embed/reports/",
  "/embed/assets/",
  "/docs/assets/",
  "/staff/assets/",
  "/md/x/",
  "/embed/assets/x/",
];

const DOTS = [
  "..",
  "%2e%2e",
  "%2E%2E",
  ".%2e",
  "%2e.",
  "%252e%252e",
  "%c0%ae%c0%ae",
  "%uff0e%uff0e",
  "....",
  ".",
  "%2e",
];
const SEPARATORS = ["/", "%2f", "%2F", "\\", "%5c", "%5C", "%252f", "%c0%af", "//", ";/"];
const TARGETS = [
  "package.json",
  "etc/passwd",
  "src/app/config.ts",
  ".data/admin-token",
  "docs/getting-started.md",
  "web/dist/embed.js",
  "node_modules/koa/package.json",
  "README.md",
  "proc/self/environ",
];
const ENDINGS = ["", "%00", "%00.md", ".md", "%00.js", "?x=1", "#x", "%20"];

/** What the files a traversal would reach look like; none of it may ever be answered. */
const FILE_CONTENTS = [
  /"dependencies"\s*:/,
  /"name"\s*:\s*"dialysis-hub"/,
  /root:x?:0:0/,
  /\bimport \{/,
  /export (?:async )?function/,
  /REQUEST_TIMEOUT_MS/,
  new RegExp(TEST_ADMIN_TOKEN),
];

const traversal: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...PREFIXES),
    fc.array(fc.tuple(fc.constantFrom(...DOTS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 6 }),
    fc.constantFrom(...TARGETS),
    fc.constantFrom(...ENDINGS),
  )
  .map(
    ([prefix, steps, target, ending]) =>
      `${prefix}${steps.map(([dots, separator]) => `${dots}${separator}`).join("")}${target}${ending}`,
  );

describe("hostile input: path traversal on the pages that serve files", function () {
  this.timeout(60_000);
  const hub = useTestService({ projections: allProjections });
  let client: RawHttpClient;

  before(async () => {
    client = rawHttpClient(hub.service.url!, 4);
  });
  after(() => client?.close());

  async function expectNothingServed(path: string): Promise<void> {
    const answer = await client.send({ method: "GET", path, headers: { "x-service-tenant": "h1" } });
    expect(answer.status, path).to.be.oneOf([400, 404]);
    for (const content of FILE_CONTENTS)
      expect(answer.text, `${path} → ${answer.text.slice(0, 200)}`).not.to.match(content);
  }

  it("serves the real files, so a 404 below means the path was refused, not that nothing is there", async () => {
    expect((await client.send({ method: "GET", path: "/md/getting-started.md" })).status).to.equal(200);
    const assets: string[] = [];
    for (const page of ["/staff", "/docs"]) {
      const html = (await client.send({ method: "GET", path: page })).text;
      assets.push(...[...html.matchAll(/(?:src|href)="(\/[a-z]+\/assets\/[^"?#]+)/g)].map((m) => m[1]!));
    }
    expect(assets, "the pages link their assets").not.to.be.empty;
    for (const asset of assets) expect((await client.send({ method: "GET", path: asset })).status, asset).to.equal(200);
  });

  it("answers 400 or 404 to each written-out attempt on every prefix", async () => {
    const attempts = [
      "../package.json",
      "..%2f..%2fpackage.json",
      "%2e%2e%2f%2e%2e%2fpackage.json",
      "..%5c..%5cpackage.json",
      "..\\..\\package.json",
      "%2e%2e%5c%2e%2e%5cetc%5cpasswd",
      "....//....//etc/passwd",
      "%252e%252e%252fpackage.json",
      "%c0%ae%c0%ae%c0%afetc%c0%afpasswd",
      "package.json%00.md",
      "%00",
      "..%00/package.json",
      "%2fetc%2fpasswd",
      "/etc/passwd",
      "C:%5cwindows%5cwin.ini",
    ];
    for (const prefix of PREFIXES) for (const attempt of attempts) await expectNothingServed(`${prefix}${attempt}`);
  });

  it("answers 400 or 404 to 600 generated combinations of dot segments, encodings, backslashes and NUL", async () => {
    const paths = fc.sample(traversal, {
      numRuns: 600,
      seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
    });
    for (let i = 0; i < paths.length; i += 6) {
      fuzzTally.sent += Math.min(6, paths.length - i);
      await Promise.all(paths.slice(i, i + 6).map(expectNothingServed));
    }
    console.log(`      fuzzed traversal paths: ${paths.length}`);
  });
});
