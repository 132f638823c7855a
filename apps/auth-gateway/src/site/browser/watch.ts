/**
 * `/assets/watch.<hash>.js`: keeps a watch page current (site/pages/watch-page.ts). The page is
 * complete without it; with it, the page follows the event's live stream and changes in place
 * (watch/live-page.ts). Bundled by the build into one file from this server, the only script the
 * page's CSP (`script-src 'self'`) lets it run.
 */
import type { WatchConfig } from '../pages/page-text.js';
import { LivePage } from './watch/live-page.js';

const main = document.getElementById('main');
const config = main?.dataset['watch'];
if (main && config && typeof EventSource === 'function')
  new LivePage(main, JSON.parse(config) as WatchConfig).follow();
