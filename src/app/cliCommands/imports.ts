import { readFileSync } from "node:fs";
import { importPatientsCsv } from "../../../commands/patients/importPatientsCsv.ts";
import { TENANT_PATTERN } from "../../../db/tenantScope.ts";
import { createLogger } from "../../logger.ts";
import { idCardRegister } from "../../patients/registeredPatients.ts";
import { loadIdentifierHasher } from "../../secrets/identifierKey.ts";
import { importFile, type ImportFileOptions } from "../bulkImportCli.ts";
import { withDatabase } from "./database.ts";
import { withCommandContext } from "./inProcessProjections.ts";

/** `import <kind> <file>`: a bulk job of lab or exam reports, followed to its end unless --no-wait. */
export function importReports(kind: string, file: string, options: ImportFileOptions): Promise<void> {
  return withDatabase((url) =>
    withCommandContext(url, (ctx) => importFile(ctx.store, createLogger("warn"), kind, file, options)),
  );
}

/** `patients import <file>`: exit code 1 when a line was rejected. */
export function importPatients(file: string, { tenant }: { tenant: string }): Promise<void> {
  if (!TENANT_PATTERN.test(tenant)) throw new Error("--tenant must be 1 to 64 letters, digits, '_' or '-'");
  const text = readUtf8(file);
  return withDatabase((url) =>
    withCommandContext(url, async (ctx, db) => {
      const result = await importPatientsCsv(
        ctx,
        idCardRegister(db, await loadIdentifierHasher(db, process.env.ID_HASH_KEY)),
        tenant,
        text,
      );
      for (const { line, message } of result.rejected) console.log(`line ${line}: ${message}`);
      const imported = result.created + result.updated + result.unchanged;
      console.log(
        `imported ${imported} (created ${result.created}, updated ${result.updated}, unchanged ${result.unchanged}), rejected ${result.rejected.length}`,
      );
      if (result.rejected.length > 0) process.exitCode = 1;
    }),
  );
}

function readUtf8(file: string): string {
  const bytes = readFileSync(file);
  try {
    // The BOM stays in the text: the CSV parser removes it.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${file} is not UTF-8 text (saved as GBK/ANSI?); in Excel choose "Save as" → "CSV UTF-8"`);
  }
}
