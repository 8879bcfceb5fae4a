/**
 * The report editor's bundle (CodeMirror and the spec form), loaded by the staff pages only when
 * an editor page opens (web/staff/lazyPages.ts).
 */
import { editorPage } from "./staff/editor/editorPage.ts";
import { provideBundle } from "./staff/lazyPages.ts";

provideBundle("editor", { editorPage });
