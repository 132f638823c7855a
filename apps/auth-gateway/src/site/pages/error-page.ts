import { PROBLEM_CODES, type ProblemCode } from '@townhall/contracts';
import { html, type Markup } from './markup.js';
import { pageDocument } from './page-layout.js';

/** What the page of a problem says: the fields of its problem+json. */
export interface PageProblem {
  code: ProblemCode;
  detail: string;
  requestId: string;
}

/**
 * A problem as a page for people: what went wrong in words, its code (the same as in
 * problem+json, with its explanation under /docs/errors/) and the request id to quote.
 */
export function errorPage(problem: PageProblem): Markup {
  const { title, status } = PROBLEM_CODES[problem.code];
  return pageDocument({
    title: `${title} · Townhall`,
    main: html`<main id="main" class="problem">
      <h1>${title}</h1>
      <p>${problem.detail}</p>
      <p class="meta">HTTP ${status} · <a href=${`/docs/errors/${problem.code}`}><code>${problem.code}</code></a> · request <code>${problem.requestId}</code></p>
      <p><a href="/">See what is live and coming up</a></p>
    </main>`,
  });
}
