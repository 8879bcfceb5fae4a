import { pageFrame, type PageContext } from "./page.ts";

/** The credentials of the tenant (role admin): placeholder until the page is built. */
export function credentialsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  return pageFrame("credentials", texts.credentials, texts.credentialsIntro);
}
