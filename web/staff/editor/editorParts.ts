import type { PageContext } from "../page.ts";
import type { VersionEntry } from "../types.ts";
import type { EditorState } from "./editorState.ts";
import type { EditorTexts } from "./editorTexts.ts";
import type { EditorToolbar, ReportIdentity } from "./editorToolbar.ts";
import type { EditorViews } from "./editorViews.ts";
import type { FindingsPanels } from "./findingsPanels.ts";
import type { PreviewPane } from "./previewPane.ts";
import type { VersionsPanel } from "./versionsPanel.ts";

/**
 * One report's editor as the flows that talk to the service see it (save, publish, discard,
 * reload): its state and the parts of the page that show it.
 */
export interface EditorParts {
  ctx: PageContext;
  texts: EditorTexts;
  state: EditorState;
  /** The page's heading, which names the report once it is first saved. */
  heading: HTMLElement;
  identity: ReportIdentity;
  toolbar: EditorToolbar;
  views: EditorViews;
  findings: FindingsPanels;
  /** Says that another author saved, published or discarded the draft since this editing began. */
  conflictBox: HTMLElement;
  preview: PreviewPane;
  versions: {
    slot: HTMLElement;
    /** The versions last shown (the preview falls back on the current one). */
    shown: VersionEntry[];
    /** Made when the report first has versions to show (it exists). */
    panel: VersionsPanel | null;
  };
}
