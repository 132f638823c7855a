import type { IncomingMessage, ServerResponse } from 'node:http';

/** The test servers' JSON answer (bigints as decimal strings); nothing once an answer has started. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(
      JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
    );
}

/** A request's whole body, as UTF-8 text. */
export async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
