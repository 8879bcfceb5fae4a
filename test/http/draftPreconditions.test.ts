import { expect } from "chai";
import { useIngestionService } from "../support/ingestion.ts";
import { adequacySpec } from "../support/reports.ts";

/*
 * Two authors editing one report: a draft save may say which draft it was based on (If-Match with
 * the draft's ETag, or If-None-Match: * for "there was none"), and is refused with 412 instead of
 * overwriting a draft saved meanwhile. A save without either replaces the draft, as before.
 */

describe("saving a draft on condition (If-Match / If-None-Match)", () => {
  const hub = useIngestionService();
  const titled = (title: string) => ({ spec: { ...adequacySpec, title } });
  const save = (title: string, headers: Record<string, string> = {}) =>
    hub.tenant.call("PUT", "/api/reports/shared/draft", {
      token: hub.tenant.authorToken,
      body: titled(title),
      headers,
    });
  const source = () =>
    hub.tenant.call("GET", "/api/reports/shared/versions/draft/source", { token: hub.tenant.authorToken });

  it("creates a draft only where there is none with If-None-Match: *, and answers its ETag", async () => {
    const first = await save("First", { "if-none-match": "*" });
    expect(first.status).to.equal(200);
    const etag = first.headers.get("etag");
    expect(etag).to.match(/^"draft-\d+"$/);
    expect((await source()).headers.get("etag"), "the source of the draft carries the same ETag").to.equal(etag);

    const again = await save("Someone else's first", { "if-none-match": "*" });
    expect(again.status).to.equal(412);
    expect(again.body.error).to.include("the draft was saved again since").and.include("ETag");
    expect((await source()).body.title, "the draft that was there stays").to.equal("First");
  });

  it("refuses a save based on a draft that was saved again meanwhile, and takes one based on the current draft", async () => {
    const mine = (await source()).headers.get("etag")!;
    const theirs = await save("Theirs", { "if-match": mine });
    expect(theirs.status).to.equal(200);
    const theirEtag = theirs.headers.get("etag")!;
    expect(theirEtag).to.not.equal(mine);

    const stale = await save("Mine", { "if-match": mine });
    expect(stale.status).to.equal(412);
    expect((await source()).body.title).to.equal("Theirs");
    expect((await save("Mine, on theirs", { "if-match": theirEtag })).status).to.equal(200);
    expect((await save("Any draft will do", { "if-match": "*" })).status).to.equal(200);
  });

  it("sees a publish as the end of the draft a save was based on", async () => {
    const based = (await source()).headers.get("etag")!;
    expect(
      (
        await hub.tenant.call("POST", "/api/reports/shared/publish", {
          token: hub.tenant.authorToken,
          body: { mode: "dynamic" },
        })
      ).status,
    ).to.equal(201);
    const late = await save("Late", { "if-match": based });
    expect(late.status).to.equal(412);
    expect(late.body.error).to.include("there is no draft now");
    expect((await save("Late", { "if-match": "*" })).status, "If-Match: * needs a draft").to.equal(412);
    expect((await save("Next", { "if-none-match": "*" })).status).to.equal(200);
  });

  it("publishes and discards only the draft named, when one is named", async () => {
    const named = (await save("To publish")).headers.get("etag")!;
    await save("Saved meanwhile");
    const publish = (headers: Record<string, string>) =>
      hub.tenant.call("POST", "/api/reports/shared/publish", {
        token: hub.tenant.authorToken,
        body: { mode: "snapshot" },
        headers,
      });
    const stale = await publish({ "if-match": named });
    expect(stale.status).to.equal(412);
    expect(stale.body.error).to.include("saved again since");
    const current = (await source()).headers.get("etag")!;
    const discard = (headers: Record<string, string>) =>
      hub.tenant.call("DELETE", "/api/reports/shared/draft", { token: hub.tenant.authorToken, headers });
    expect((await discard({ "if-match": named })).status).to.equal(412);
    expect((await source()).body.title, "neither published nor discarded").to.equal("Saved meanwhile");
    const published = await publish({ "if-match": current });
    expect(published.status).to.equal(201);
    expect(published.body.mode).to.equal("snapshot");
  });

  it("replaces the draft without a condition, as it always has, and says how to write one that is malformed", async () => {
    expect((await save("Unconditional")).status).to.equal(200);
    const malformed = await save("Odd", { "if-match": "v3" });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error).to.include("If-Match takes the ETag of the draft");
    expect((await save("Both", { "if-match": "*", "if-none-match": "*" })).status).to.equal(400);
  });
});
