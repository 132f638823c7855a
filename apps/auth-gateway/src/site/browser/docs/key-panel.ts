import {
  SIGNATURE_SCHEMES,
  type ApiDocument,
  type DocsSigner,
  type SignatureScheme,
} from './request-signing.js';

/** How each scheme is offered, and what it sends. */
const SCHEME_LABELS: Record<SignatureScheme, string> = {
  'service-auth-v1': 'service-auth-v1 (Authorization, X-Nonce)',
  rfc9421: 'RFC 9421 (Signature-Input, Signature, Content-Digest)',
};

/** What this page uses of the React that Swagger UI brings (the page loads no React of its own). */
export interface ReactLike {
  createElement(type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]): unknown;
  useState<S>(initial: S): [S, (next: S | ((previous: S) => S)) => void];
  useRef<T>(initial: T): { current: T };
  useEffect(effect: () => void | (() => void), dependencies?: readonly unknown[]): void;
}

/** What this page uses of Swagger UI's plugin system. */
export interface SwaggerSystem {
  React: ReactLike;
  specSelectors: { specJson(): { toJS(): ApiDocument } };
}

/** Takes the Authorize button's place (Swagger UI's dialog cannot do `service` signatures): a field for the key, and who signs. */
function KeyPanel({ React, signer }: { React: ReactLike; signer: DocsSigner }): unknown {
  const h = React.createElement;
  const [, setVersion] = React.useState(0);
  const [problem, setProblem] = React.useState('');
  const [busy, setBusy] = React.useState(false);
  const field = React.useRef<HTMLTextAreaElement | null>(null);
  React.useEffect(() => signer.onChange(() => setVersion((version) => version + 1)), []);

  async function takeKey(): Promise<void> {
    const text = field.current?.value ?? '';
    // Out of the page at once: from here on the key is a CryptoKey that cannot be read back.
    if (field.current) field.current.value = '';
    setBusy(true);
    setProblem('');
    try {
      await signer.setKey(text);
    } catch (error) {
      if (field.current) field.current.value = text;
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  function forget(): void {
    setProblem('');
    signer.forgetKey();
  }

  function chooseScheme(event: { target: { value: string } }): void {
    signer.setScheme(event.target.value as SignatureScheme);
  }

  const agentId = signer.agentId;
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
      h(
        'button',
        { id: 'townhall-key-use', type: 'button', className: 'btn', disabled: busy, onClick: takeKey },
        'Use key',
      ),
      agentId
        ? h(
            'button',
            { id: 'townhall-key-forget', type: 'button', className: 'btn', onClick: forget },
            'Forget key',
          )
        : null,
      h(
        'label',
        { className: 'townhall-signing__scheme', htmlFor: 'townhall-scheme' },
        'Signature',
        h(
          'select',
          { id: 'townhall-scheme', value: signer.scheme, onChange: chooseScheme },
          ...SIGNATURE_SCHEMES.map((scheme) =>
            h('option', { key: scheme, value: scheme }, SCHEME_LABELS[scheme]),
          ),
        ),
      ),
    ),
    h(
      'p',
      { id: 'townhall-key-status', className: 'townhall-signing__status', role: 'status' },
      agentId
        ? `Signing as ${agentId}, ${signer.scheme === 'rfc9421' ? 'RFC 9421' : 'service-auth-v1'}.`
        : 'No key: signed operations go out unsigned (401).',
      ' The key stays in this page: never sent, never stored; a reload forgets it.',
    ),
    problem
      ? h('p', { id: 'townhall-key-problem', className: 'townhall-signing__problem', role: 'alert' }, problem)
      : null,
  );
}

/**
 * The Swagger UI plugin: the key field for the Authorize button, a "signed" mark for each
 * operation's lock; `onLoad` hands over the system once Swagger UI has it.
 */
export function signingPlugin(signer: DocsSigner, onLoad: (system: SwaggerSystem) => void) {
  return () => ({
    afterLoad: onLoad,
    wrapComponents: {
      authorizeBtn: (_original: unknown, system: SwaggerSystem) =>
        function SigningKey() {
          return system.React.createElement(KeyPanel, { React: system.React, signer });
        },
      authorizeOperationBtn: (_original: unknown, system: SwaggerSystem) =>
        function SignedMark() {
          return system.React.createElement(
            'span',
            {
              className: 'townhall-signed',
              title: 'Signed with the agent key (service-auth-v1 or RFC 9421)',
            },
            'signed',
          );
        },
    },
  });
}
