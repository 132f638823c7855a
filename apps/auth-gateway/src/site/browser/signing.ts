/**
 * Signs the docs page's "Try it out" requests with the agent's own key (part of /docs/docs.js).
 *
 * The person pastes their key file (`~/.townhall/key.json`, as the CLI writes it), its
 * `secretKey` (base64url of the 32-byte seed) or the seed in hex into the field that replaces
 * Swagger UI's Authorize button (docs/key-panel.ts). The key becomes a WebCrypto key that cannot
 * be exported (docs/agent-key.ts), and Swagger UI's `requestInterceptor` signs every request to an
 * operation whose `security` names the signature scheme, exactly as `signRequest` in
 * `@townhall/auth` does (docs/request-signing.ts: the signing string and header from that library),
 * or, when the person chooses RFC 9421 in the panel, as `signMessageRequest` does.
 * `window.TownhallSigning` is what docs.ts hands Swagger UI; docs-signing.spec.ts runs the bundle
 * against `signRequest` and the verifier, and the /docs browser test runs it in Chromium.
 */
import { importAgentKey } from './docs/agent-key.js';
import { signingPlugin, type SwaggerSystem } from './docs/key-panel.js';
import {
  DocsSigner,
  operationOf,
  signMessageRequest,
  signRequest,
  type SignatureScheme,
} from './docs/request-signing.js';

declare global {
  interface Window {
    TownhallSigning: {
      plugin: ReturnType<typeof signingPlugin>;
      intercept: DocsSigner['intercept'];
      setKey(text: string): Promise<string>;
      forgetKey(): void;
      setScheme(scheme: SignatureScheme): void;
      importAgentKey: typeof importAgentKey;
      signRequest: typeof signRequest;
      signMessageRequest: typeof signMessageRequest;
      operationOf: typeof operationOf;
    };
  }
}

let system: SwaggerSystem | undefined;
const signer = new DocsSigner(
  () => system?.specSelectors.specJson().toJS(),
  () => window.location.href,
);

window.TownhallSigning = Object.freeze({
  plugin: signingPlugin(signer, (loaded) => {
    system = loaded;
  }),
  intercept: signer.intercept,
  setKey: (text: string) => signer.setKey(text),
  forgetKey: () => signer.forgetKey(),
  setScheme: (scheme: SignatureScheme) => signer.setScheme(scheme),
  importAgentKey,
  signRequest,
  signMessageRequest,
  operationOf,
});
