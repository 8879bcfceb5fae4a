import Router from "@koa/router";
import { z } from "zod";
import { savePatient } from "../../commands/patients/managePatients.ts";
import { PATIENT_REF_PATTERN, registerPatientInput } from "../../commands/patients/registerPatient.ts";
import type { EventStore } from "../../db/eventStore.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { listPatients, patientByRef } from "../../queries/patients.ts";
import { requireAuthor, type Caller } from "./authorAuth.ts";
import { HttpError } from "./httpError.ts";
import { parseBody } from "./validate.ts";

/** `GET /api/patients?q=`: the search text of the staff pages' patient picker (see listPatients). */
export const listQuery = z.strictObject(
  { q: z.string({ error: "q is a search text, sent once" }).max(100, "q has at most 100 characters").optional() },
  { error: (issue) => (issue.code === "unrecognized_keys" ? "The only query parameter is q, a search text (name, patientRef, hisPatientId or the id card as shown masked)" : undefined) },
);

export function patientRoutes(store: EventStore, adminToken: string | undefined): Router {
  const router = new Router({ prefix: "/api/patients" });
  router.use(requireAuthor(store.db, adminToken));

  router.get("/", async (ctx) => {
    const { q } = parseBody(listQuery, ctx.query);
    ctx.body = await readAsTenant(store.db, ctx.state.tenant, (reader) => listPatients(reader, q));
  });

  router.put("/:patientRef", async (ctx) => {
    const patientRef = ctx.params.patientRef!;
    if (!PATIENT_REF_PATTERN.test(patientRef)) {
      throw new HttpError(400, "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.");
    }
    const input = parseBody(registerPatientInput, ctx.request.body);
    const caller = ctx.state.caller as Caller;
    await savePatient({ store, metadata: { actor: caller.name, requestId: ctx.state.requestId } }, store.db, ctx.state.tenant, patientRef, input);
    ctx.body = await readAsTenant(store.db, ctx.state.tenant, (reader) => patientByRef(reader, patientRef));
  });
  return router;
}
