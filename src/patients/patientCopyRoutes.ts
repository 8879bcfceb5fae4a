import { PassThrough } from "node:stream";
import Router from "@koa/router";
import type { Logger } from "pino";
import { PATIENT_REF_PATTERN } from "../../commands/patients/registerPatient.ts";
import type { Db } from "../../db/pool.ts";
import type { Dictionary } from "../../db/seed/defaultDictionary.ts";
import { localDate } from "../../db/localDateTime.ts";
import { readAsTenant } from "../../db/tenantScope.ts";
import { copyPatient } from "../../queries/patients/patientCopy.ts";
import type { AccessRecording } from "../access/accessRecording.ts";
import { showing } from "../access/shownSubjects.ts";
import { attachment } from "../http/attachment.ts";
import { requireRole } from "../http/authorAuth.ts";
import { HttpError } from "../http/httpError.ts";
import { StreamedZip, ZipReaderGone } from "../http/streamedZip.ts";
import { writePatientCopy } from "./patientCopy.ts";

export const PATIENT_COPY_CONTENT_TYPE = "application/zip";

/** `P001 copy 2026-03-01.zip`: a patientRef is letters, digits, '_', '.' and '-' only, so it is a file name as it is. */
export function patientCopyFileName(patientRef: string, day: string): string {
  return `${patientRef} copy ${day}.zip`;
}

/**
 * `GET /api/patients/{patientRef}/copy` (contract G.1, PIPL art. 45): the copy of a patient's data
 * that an administrator hands to the patient who asks for it, as a zip streamed while it is read
 * (patientCopy.ts). Like every answer about a patient it is an access record (E.4), and an
 * administrator limited to wards finds another ward's patient as one that does not exist (E.2).
 */
export function patientCopyRoutes(deps: {
  db: Db;
  dictionary: Dictionary;
  adminToken: string | undefined;
  access: AccessRecording;
  log: Logger;
}): Router {
  const router = new Router();

  router.get(
    "/api/patients/:patientRef/copy",
    requireRole(deps.adminToken, "admin"),
    deps.access.recorded,
    async (ctx) => {
      const patientRef = ctx.params.patientRef!;
      if (!PATIENT_REF_PATTERN.test(patientRef))
        throw new HttpError(
          400,
          "patientRef must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
        );
      // About this patient from here on, found or not: an attempt on a patient is part of its log.
      showing(ctx, { patientRefs: [patientRef] });
      const tenant: string = ctx.state.tenant;
      const copiedAt = new Date();
      const patient = await readAsTenant(deps.db, tenant, (reader) =>
        copyPatient(reader, deps.db, tenant, patientRef, copiedAt),
      );
      if (!patient)
        throw new HttpError(
          404,
          `No patient ${patientRef} in this tenant; GET /api/patients lists them.`,
          {},
          "patient-not-found",
        );

      ctx.status = 200;
      ctx.type = PATIENT_COPY_CONTENT_TYPE;
      ctx.set("Content-Disposition", attachment(patientCopyFileName(patientRef, localDate(copiedAt))));
      ctx.set("Cache-Control", "no-store");
      // A HEAD answer has no body: nothing is read for it (and it shows nobody, accessRecording.ts).
      if (ctx.method === "HEAD") return;
      const out = new PassThrough();
      ctx.body = out;
      // The files are read as the archive is written: the answer's headers are gone by then, so a
      // failure can only cut the response (the access record says "cut"), which the client sees as an
      // error. A reader that went away stops the reading, and is no fault.
      writePatientCopy(new StreamedZip(out, copiedAt), {
        db: deps.db,
        dictionary: deps.dictionary,
        tenant,
        patient,
      }).catch((error: unknown) => {
        if (error instanceof ZipReaderGone) return;
        deps.log.error({ err: error, patientRef }, "patient copy failed while it was written");
        out.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    },
  );
  return router;
}
