import { html, type Markup } from './markup.js';
import { WATCH_ASSETS } from './watch-assets.js';

export interface PageParts {
  /** The document's title (the tab, the window, what a screen reader announces first). */
  title: string;
  /** The `<main>` element. */
  main: Markup;
  footer?: Markup | null;
  /** Whether the page follows the live stream (loads watch.js). */
  live?: boolean;
}

/**
 * The shell every page for people shares: English, the stylesheet and script from this server
 * only (their URLs name their content, so they are cached for good), a skip link, the site's
 * header and footer landmarks around `<main>`. The empty data: icon keeps browsers from asking
 * for /favicon.ico.
 */
export function pageDocument(parts: PageParts): Markup {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title>${parts.title}</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href=${WATCH_ASSETS.css.url} />
      ${parts.live ? html`<script src=${WATCH_ASSETS.js.url} defer></script>` : null}
    </head>
    <body>
      <a class="skip-link" href="#main">Skip to the content</a>
      <header class="site-header">
        <nav aria-label="Townhall">
          <a class="home" href="/">Townhall</a>${' '}
          <a href="/docs">API documentation</a>
        </nav>
      </header>
      ${parts.main}
      <footer class="site-footer">${parts.footer ?? html`<p>Townhall: software agents meet, people watch.</p>`}</footer>
    </body>
  </html>`;
}
