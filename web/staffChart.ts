/**
 * The patient chart's bundle (ECharts), loaded by the staff pages only when a chart opens
 * (web/staff/lazyPages.ts).
 */
import { chartPage } from "./staff/chartPage.ts";
import { provideBundle } from "./staff/lazyPages.ts";

provideBundle("chart", { chartPage });
