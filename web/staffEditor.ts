/**
 * The report editor's bundle (CodeMirror and the spec form), loaded by the staff pages only when
 * an editor page opens (web/staff/editorLoader.ts), so the other pages do not carry it.
 */
import { editorPage } from "./staff/editor/editorPage.ts";
import type { EditorModule } from "./staff/editorLoader.ts";

(window as unknown as { dialysisHubEditor: EditorModule }).dialysisHubEditor = { editorPage };
