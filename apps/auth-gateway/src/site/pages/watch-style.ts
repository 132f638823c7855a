/**
 * `/assets/watch.css`: the stylesheet of the pages for people (the watch page, the index, their
 * error pages). A file from this server, since the pages' CSP allows no inline style. No web
 * fonts: the system's own. Light and dark from `prefers-color-scheme`, every text colour at
 * least 4.5:1 against its background (WCAG AA), readable from 320 px wide: long words and ids
 * wrap instead of widening the page.
 */
export const WATCH_STYLE = `:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1b1b1f;
  --muted: #4f5259;
  --line: #c9ccd3;
  --card: #f4f5f8;
  --accent: #0b57d0;
  --live: #b3261e;
  --on-live: #ffffff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #121316;
    --fg: #e6e7ea;
    --muted: #b4b7bf;
    --line: #3c3f46;
    --card: #1d1f24;
    --accent: #a8c7fa;
    --live: #f2b8b5;
    --on-live: #3c0d0a;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  overflow-wrap: anywhere;
}
a { color: var(--accent); }
a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; word-break: break-all; }
.skip-link { position: absolute; left: -10000px; top: 0.5rem; padding: 0.5rem 0.75rem; background: var(--bg); border: 2px solid var(--accent); }
.skip-link:focus { left: 0.5rem; z-index: 1; }
.site-header, .site-footer { padding: 0.75rem 1rem; }
.site-header { border-bottom: 1px solid var(--line); }
.site-header nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; align-items: baseline; max-width: 46rem; margin: 0 auto; }
.site-header .home { color: var(--fg); font-weight: 700; text-decoration: none; font-size: 1.1rem; }
.site-footer { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.9rem; }
.site-footer > * { max-width: 46rem; margin-left: auto; margin-right: auto; }
.site-footer p { margin-top: 0.25rem; margin-bottom: 0.25rem; }
/* The content is 46rem wide at most, centred: main's padding is the header's and footer's. */
main { display: block; max-width: 48rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.25rem 0 0.75rem; }
h2 { font-size: 1.2rem; line-height: 1.3; margin: 1.75rem 0 0.6rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; line-height: 1.35; margin: 0 0 0.25rem; }
ol, ul { margin: 0; padding: 0; list-style: none; }
.status { margin: 0; }
.badge { display: inline-block; padding: 0.1rem 0.55rem; border: 1px solid var(--line); border-radius: 999px; font-size: 0.8rem; font-weight: 700; letter-spacing: 0.04em; text-transform: uppercase; }
.badge.status-live { background: var(--live); border-color: var(--live); color: var(--on-live); }
.facts { display: grid; gap: 0.2rem; margin: 0 0 0.75rem; }
.facts div { display: flex; flex-wrap: wrap; gap: 0 0.75rem; }
.facts dt { font-weight: 600; min-width: 5.5rem; }
.facts dd { margin: 0; }
.description, .summary, .body { white-space: pre-line; }
.description { margin: 0.5rem 0 0; }
.stage > li, .questions > li, .polls > li, .events > li {
  margin: 0 0 0.5rem;
  padding: 0.6rem 0.75rem;
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: 0.5rem;
}
.stage > li.empty, .questions > li.empty, .polls > li.empty { padding: 0; background: none; border: 0; }
.meta { margin: 0; color: var(--muted); font-size: 0.875rem; }
.body { margin: 0.25rem 0 0; }
.removed { color: var(--muted); font-style: italic; }
.from-question { border-left: 4px solid var(--accent); }
.question .state { font-weight: 600; }
.question .upvotes { margin-right: 0.5rem; }
.options li { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 0.1rem 0.75rem; margin: 0.4rem 0 0; }
.options meter { grid-column: 1 / -1; width: 100%; height: 0.6rem; }
.options .votes { color: var(--muted); font-variant-numeric: tabular-nums; }
.agenda li { padding: 0.3rem 0; border-bottom: 1px solid var(--line); }
.agenda li:last-child { border-bottom: 0; }
.when { color: var(--muted); font-variant-numeric: tabular-nums; }
.seats li { padding: 0.2rem 0; }
.seats .left { font-weight: 700; font-variant-numeric: tabular-nums; }
.events .when { display: block; font-size: 0.9rem; }
.empty, .note { color: var(--muted); }
.note { font-size: 0.9rem; }
.recording p { margin: 0.4rem 0; }
`;
