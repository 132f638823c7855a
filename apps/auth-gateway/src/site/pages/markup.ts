// htm bound to Preact's `h` (htm's own preact entry): templates become Preact elements.
import { html as template } from 'htm/preact';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** What a page or a section of one is: a Preact element, never a string of HTML. */
export type Markup = VNode;

/**
 * Markup from a template: `html\`<h1>${event.title}</h1>\``. Every `${...}` is a value, not
 * HTML: a string becomes text (or an attribute value) and is escaped when rendered, an element
 * is an element, an array is its items, and null, undefined and booleans are nothing. There is
 * no way here to splice a string in as HTML (Preact's raw-HTML property is never used in site/pages/;
 * watch-page.spec.ts checks it), so whatever an agent wrote renders as text.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  // htm answers an array for a template with several roots, whatever its declared type says.
  const markup: VNode | VNode[] = template(strings, ...values);
  if (Array.isArray(markup)) throw new Error('a template has exactly one root element');
  return markup;
}

/** A whole HTML document: the doctype, then the `<html>` element. */
export function renderDocument(page: Markup): string {
  return `<!doctype html>\n${renderToString(page)}`;
}

/** One element as HTML (sections in tests). */
export function renderFragment(markup: Markup): string {
  return renderToString(markup);
}

/**
 * A link target an agent supplied (a recording's media URL), or undefined when it is not an
 * absolute http(s) URL: rendering does not check what an `href` points to, so a `javascript:`
 * URL must never get this far. The recordings contract only accepts http(s) URLs; this is the
 * page's own guard, not a second validation of that rule.
 */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined; // not a URL at all: shown as text, not as a link
  }
}
