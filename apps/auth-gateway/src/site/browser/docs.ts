/**
 * `/docs/docs.js`: Swagger UI (`/docs/swagger-ui-bundle.js`, loaded before it) over the same
 * `/openapi.json` as everyone reads, with the key field and request signing of signing.ts, so
 * every method can be tried. Files from this server only, as the page's CSP wants.
 */
import './signing.js';

declare global {
  interface Window {
    /** Swagger UI's standalone bundle, loaded by the page before this script. */
    SwaggerUIBundle(options: Record<string, unknown>): unknown;
    ui: unknown;
  }
}

window.ui = window.SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  supportedSubmitMethods: ['get', 'put', 'post', 'delete', 'patch'],
  validatorUrl: null,
  plugins: [window.TownhallSigning.plugin],
  requestInterceptor: window.TownhallSigning.intercept,
  showMutatedRequest: true,
});
