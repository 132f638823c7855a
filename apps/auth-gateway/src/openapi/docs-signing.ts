/**
 * `/docs/signing.js`: signs the docs page's "Try it out" requests with the agent's own key.
 *
 * The person pastes their key file (`~/.townhall/key.json`, as the CLI writes it), its
 * `secretKey` (base64url of the 32-byte seed) or the seed in hex into the field that replaces
 * Swagger UI's Authorize button (which cannot do `service` signatures). The seed is imported
 * into WebCrypto as a non-extractable Ed25519 key and dropped; the key lives in this script's
 * closure only: it is never sent, never stored (no localStorage, no cookie) and a reload forgets
 * it. Swagger UI's `requestInterceptor` then signs every request to an operation whose
 * `security` names the signature scheme exactly as `signRequest` in `@townhall/auth` does
 * (service-auth-v1, docs/protocol/signing.md section 2): audience (the document's server, which
 * is PUBLIC_BASE_URL), method, raw path and query, agentId, timestamp, nonce and the SHA-256 of
 * the body bytes sent.
 *
 * Plain browser JavaScript in a string: the build compiles only TypeScript, and the page's CSP
 * (`script-src 'self'`) wants a file from this server, not an inline script. docs-signing.spec.ts
 * runs it against `signRequest` and the verifier; the /docs browser test runs it in Chromium.
 */
export const SIGNING_SCRIPT = String.raw`(function () {
  'use strict';

  const VERSION = 'service-auth-v1';
  const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  // RFC 8410 PKCS #8 of an Ed25519 private key: these 16 bytes, then the 32-byte seed.
  const PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
  const NONCE_BYTES = 24;
  const encoder = new TextEncoder();

  /** The key in use: { agentId, privateKey (a non-extractable CryptoKey) }, or undefined. */
  let current;
  let system;
  const listeners = new Set();

  function changed() {
    for (const listener of listeners) listener();
  }

  function base58(bytes) {
    const digits = [];
    for (const byte of bytes) {
      let carry = byte;
      for (let i = 0; i < digits.length; i++) {
        carry += digits[i] * 256;
        digits[i] = carry % 58;
        carry = Math.floor(carry / 58);
      }
      while (carry > 0) {
        digits.push(carry % 58);
        carry = Math.floor(carry / 58);
      }
    }
    let text = '';
    for (const byte of bytes) {
      if (byte !== 0) break;
      text += '1';
    }
    for (let i = digits.length - 1; i >= 0; i--) text += BASE58[digits[i]];
    return text;
  }

  function base64url(bytes) {
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function fromBase64url(text) {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  }

  function hex(bytes) {
    return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  }

  function fromHex(text) {
    const bytes = new Uint8Array(text.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    return bytes;
  }

  const FORMATS =
    'paste the whole key file (~/.townhall/key.json), its secretKey (43 base64url characters) or the 32-byte seed as 64 hex digits';
  const FORMATS_UNAMBIGUOUS = 'paste the whole key file (~/.townhall/key.json) or the 32-byte seed as 64 hex digits';

  /** The seed (and the agentId a key file names) of what was pasted. */
  function seedOf(text) {
    const value = String(text).trim();
    if (value.startsWith('{')) {
      let file;
      try {
        file = JSON.parse(value);
      } catch {
        throw new Error('That is not JSON: ' + FORMATS);
      }
      if (
        !file ||
        file.kind !== 'townhall-agent-key' ||
        file.version !== 1 ||
        typeof file.secretKey !== 'string' ||
        !/^[A-Za-z0-9_-]{43}$/.test(file.secretKey)
      )
        throw new Error('That is not a townhall agent key file (version 1)');
      return { seed: fromBase64url(file.secretKey), named: typeof file.agentId === 'string' ? file.agentId : undefined };
    }
    if (/^[0-9A-Fa-f]{64}$/.test(value)) return { seed: fromHex(value), named: undefined };
    // An agentId (base58 of the public key) is 43 or 44 characters of an alphabet inside
    // base64url's: a 43-character value with none of base64url's own characters (0 O I l - _)
    // reads as both. Taken as a seed it would sign as another agent, whose key anyone who knows
    // the agentId could derive: refuse it and ask for a form that cannot be mistaken.
    if (/^[1-9A-HJ-NP-Za-km-z]{43}$/.test(value))
      throw new Error('Not a key: that reads as an agentId (a public key); ' + FORMATS_UNAMBIGUOUS);
    if (/^[A-Za-z0-9_-]{43}$/.test(value)) return { seed: fromBase64url(value), named: undefined };
    throw new Error('Not a key: ' + FORMATS);
  }

  /** The agent key of what was pasted: its agentId and a CryptoKey that signs and cannot be exported. */
  async function importAgentKey(text) {
    if (!globalThis.crypto || !globalThis.crypto.subtle)
      throw new Error('This page cannot sign here: WebCrypto needs a secure context (https, or localhost)');
    const { seed, named } = seedOf(text);
    const pkcs8 = new Uint8Array(PKCS8_PREFIX.length + seed.length);
    pkcs8.set(PKCS8_PREFIX);
    pkcs8.set(seed, PKCS8_PREFIX.length);
    try {
      const exportable = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
      const jwk = await crypto.subtle.exportKey('jwk', exportable);
      const agentId = base58(fromBase64url(jwk.x));
      if (named !== undefined && named !== agentId)
        throw new Error('The secretKey of this key file is not the key of ' + named);
      const privateKey = await crypto.subtle.importKey(
        'jwk',
        { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d },
        { name: 'Ed25519' },
        false,
        ['sign'],
      );
      return Object.freeze({ agentId, privateKey });
    } finally {
      pkcs8.fill(0);
      seed.fill(0);
    }
  }

  /** Signs from now on with the key pasted; answers its agentId. */
  async function setKey(text) {
    current = await importAgentKey(text);
    changed();
    return current.agentId;
  }

  function forgetKey() {
    current = undefined;
    changed();
  }

  /** docs/protocol/signing.md section 2: nine fields joined by LF, no trailing LF. */
  function signingString(f) {
    return [VERSION, f.audience, f.method, f.path, f.query, f.agentId, f.timestamp, f.nonce, f.bodySha256].join('\n');
  }

  /** What signRequest in @townhall/auth returns, for the same input. target: path and ?query as sent. */
  async function signRequest(key, input) {
    const timestamp = input.timestamp || new Date().toISOString();
    const nonce = input.nonce || base64url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
    const q = input.target.indexOf('?');
    const digest = await crypto.subtle.digest('SHA-256', input.body || new Uint8Array(0));
    const text = signingString({
      audience: input.audience,
      method: input.method.toUpperCase(),
      path: q === -1 ? input.target : input.target.slice(0, q),
      query: q === -1 ? '' : input.target.slice(q + 1),
      agentId: key.agentId,
      timestamp,
      nonce,
      bodySha256: hex(new Uint8Array(digest)),
    });
    const signature = await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, encoder.encode(text));
    return {
      authorization: 'service ' + key.agentId + ':' + base58(new Uint8Array(signature)) + ':' + timestamp,
      nonce,
      timestamp,
      signingString: text,
    };
  }

  /** The operation of the document a request goes to; like Fastify, a static segment beats a parameter. */
  function operationOf(spec, method, path) {
    const segments = path.split('/');
    let found;
    let foundRank;
    for (const [template, item] of Object.entries(spec.paths || {})) {
      const operation = item && item[method.toLowerCase()];
      const parts = template.split('/');
      if (!operation || parts.length !== segments.length) continue;
      const rank = [];
      let matches = true;
      for (let i = 0; i < parts.length && matches; i++) {
        const parameter = /^\{[^}]+\}$/.test(parts[i]);
        matches = parameter || parts[i] === segments[i];
        rank.push(parameter ? '0' : '1');
      }
      if (matches && (foundRank === undefined || rank.join('') > foundRank)) {
        found = operation;
        foundRank = rank.join('');
      }
    }
    return found;
  }

  function isSigned(operation) {
    return !!operation && (operation.security || []).some((requirement) => Object.keys(requirement).length > 0);
  }

  /** The bytes fetch will send: what the signature must cover. */
  function bodyBytes(request) {
    const body = request.body;
    if (body === undefined || body === null) return new Uint8Array(0);
    if (typeof body === 'string') return encoder.encode(body);
    if (body instanceof Uint8Array) return body;
    if (body instanceof ArrayBuffer) return new Uint8Array(body);
    if (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype) {
      request.body = JSON.stringify(body);
      return encoder.encode(request.body);
    }
    throw new Error('This body (form data or a file) cannot be signed here: send it with the SDK or the CLI');
  }

  /** Swagger UI's requestInterceptor: signs requests to signed operations while a key is set. */
  async function intercept(request) {
    if (request.loadSpec || !system || !current) return request;
    const spec = system.specSelectors.specJson().toJS();
    const server = ((spec.servers || [])[0] || {}).url;
    if (typeof server !== 'string') return request;
    // The document's server is PUBLIC_BASE_URL: the audience line of every signing string.
    const audience = server.replace(/\/+$/, '');
    const base = new URL(audience);
    const url = new URL(request.url, window.location.href);
    const prefix = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !url.pathname.startsWith(prefix + '/')) return request;
    if (!isSigned(operationOf(spec, request.method, url.pathname.slice(prefix.length)))) return request;
    const signed = await signRequest(current, {
      audience,
      method: request.method,
      target: url.pathname + url.search,
      body: bodyBytes(request),
    });
    request.headers = Object.assign({}, request.headers, {
      Authorization: signed.authorization,
      'X-Nonce': signed.nonce,
    });
    return request;
  }

  /** Takes the Authorize button's place: a field for the key, and who signs. */
  function KeyPanel(props) {
    const React = props.React;
    const h = React.createElement;
    const [, setVersion] = React.useState(0);
    const [problem, setProblem] = React.useState('');
    const [busy, setBusy] = React.useState(false);
    const field = React.useRef(null);
    React.useEffect(() => {
      const listener = () => setVersion((version) => version + 1);
      listeners.add(listener);
      return () => listeners.delete(listener);
    }, []);

    async function takeKey() {
      const text = field.current.value;
      // Out of the page at once: from here on the key is a CryptoKey that cannot be read back.
      field.current.value = '';
      setBusy(true);
      setProblem('');
      try {
        await setKey(text);
      } catch (error) {
        if (field.current) field.current.value = text;
        setProblem(error && error.message ? error.message : String(error));
      } finally {
        setBusy(false);
      }
    }

    function forget() {
      setProblem('');
      forgetKey();
    }

    return h(
      'div',
      { className: 'townhall-signing' },
      h('label', { htmlFor: 'townhall-key' }, 'Agent key (signs "Try it out")'),
      h('textarea', {
        id: 'townhall-key',
        ref: field,
        rows: 2,
        autoComplete: 'off',
        spellCheck: false,
        placeholder: 'Paste your key file (~/.townhall/key.json), its secretKey, or the seed in hex',
      }),
      h(
        'div',
        { className: 'townhall-signing__actions' },
        h('button', { id: 'townhall-key-use', type: 'button', className: 'btn', disabled: busy, onClick: takeKey }, 'Use key'),
        current
          ? h('button', { id: 'townhall-key-forget', type: 'button', className: 'btn', onClick: forget }, 'Forget key')
          : null,
      ),
      h(
        'p',
        { id: 'townhall-key-status', className: 'townhall-signing__status', role: 'status' },
        current
          ? 'Signing as ' + current.agentId + '.'
          : 'No key: signed operations go out unsigned (401).',
        ' The key stays in this page: never sent, never stored; a reload forgets it.',
      ),
      problem ? h('p', { id: 'townhall-key-problem', className: 'townhall-signing__problem', role: 'alert' }, problem) : null,
    );
  }

  /** The Swagger UI plugin: the key field for the Authorize button, a "signed" mark for the lock. */
  function plugin() {
    return {
      afterLoad(loaded) {
        system = loaded;
      },
      wrapComponents: {
        authorizeBtn: (_Original, loaded) =>
          function SigningKey() {
            return loaded.React.createElement(KeyPanel, { React: loaded.React });
          },
        authorizeOperationBtn: (_Original, loaded) =>
          function SignedMark() {
            return loaded.React.createElement(
              'span',
              { className: 'townhall-signed', title: 'Signed with the agent key (service-auth-v1)' },
              'signed',
            );
          },
      },
    };
  }

  window.TownhallSigning = Object.freeze({ plugin, intercept, setKey, forgetKey, importAgentKey, signRequest, operationOf });
})();
`;
