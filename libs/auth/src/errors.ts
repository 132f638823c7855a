export type AuthFailureCode =
  | 'auth.malformed'
  | 'auth.timestamp_out_of_window'
  | 'auth.agent_invalid'
  | 'auth.signature_invalid'
  | 'auth.nonce_replayed'
  | 'auth.components_missing'
  | 'auth.key_unknown';

/** The gateway maps `code` to the 401 problem body, so every failed check must say which one it was. */
export class AuthError extends Error {
  readonly code: AuthFailureCode;

  constructor(code: AuthFailureCode, detail: string) {
    super(detail);
    this.name = 'AuthError';
    this.code = code;
  }
}
