import { clientOf } from "../../http/requestState.ts";
import type Router from "@koa/router";
import { pushingClient, type IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import { reportKinds } from "../../../commands/ingestion/reportKinds.ts";
import type { PushTally } from "../../metrics/serviceMetrics.ts";
import { notUtf8Body } from "../hl7/er7NotUtf8.ts";
import { pushHl7Messages } from "../hl7/pushHl7Messages.ts";
import { HttpError } from "../../http/httpError.ts";
import { bodyText } from "../../http/jsonBody.ts";

/** What HL7 v2 over HTTP is sent as: the ER7 media type most engines use, and plain text. */
const ER7_TYPES = ["x-application/hl7-v2+er7", "application/hl7-v2", "text/plain"];
export const ER7_CONTENT_TYPE = "x-application/hl7-v2+er7; charset=utf-8";

/** `POST /open/v1/hl7` (contract D.5): ORU^R01 messages in the body, their ACKs in the answer, in order. */
export function addHl7Route(router: Router, deps: IngestionDeps, limitBytes: number): void {
  router.post("/hl7", async (ctx) => {
    if (!ctx.is(ER7_TYPES)) {
      throw new HttpError(
        415,
        `Send HL7 v2 messages as Content-Type: x-application/hl7-v2+er7 (or text/plain), segments ending with \\r; JSON reports go to /open/v1/lab/reports.`,
      );
    }
    const client = clientOf(ctx);
    const tally: PushTally = {
      kind: reportKinds.lab.name,
      tenant: client.tenant,
      client: client.clientId,
      outcomes: [],
    };
    ctx.state.push = tally;
    const answers = await pushHl7Messages(
      deps,
      pushingClient(client),
      await bodyText(ctx, limitBytes, "HL7 v2 text", notUtf8Body),
      ctx.state.requestId,
    );
    tally.outcomes = answers.flatMap((answer) => (answer.outcome ? [answer.outcome] : []));
    tally.hl7Acks = answers.map((answer) => answer.code);
    ctx.status = 200;
    ctx.type = ER7_CONTENT_TYPE;
    ctx.body = answers.map(({ ack }) => `${ack}\r`).join("");
  });
}
