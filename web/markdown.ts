import { Marked, type Tokens } from "marked";

/**
 * Markdown of text nodes. Raw HTML in the markdown is shown as text (escaped), never injected;
 * links keep only http(s), mailto, in-page and same-site relative targets; images only
 * same-site or data: images (the CSP allows nothing else anyway).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const SAFE_LINK = /^(?:https?:\/\/|mailto:|#|\/(?!\/)|\.{1,2}\/|[^:/?#]+(?:[/?#]|$))/i;
const SAFE_IMAGE = /^(?:data:image\/(?:png|jpeg|gif|webp);|\/(?!\/)|\.{1,2}\/)/i;

const marked = new Marked({ gfm: true, breaks: false, async: false });
marked.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = token.href.trim();
      if (!SAFE_LINK.test(href)) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image) {
      const href = token.href.trim();
      if (!SAFE_IMAGE.test(href)) return escapeHtml(token.text);
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<img src="${escapeHtml(href)}" alt="${escapeHtml(token.text)}"${title}>`;
    },
  },
});

export function markdownHtml(source: string): string {
  return marked.parse(source) as string;
}
