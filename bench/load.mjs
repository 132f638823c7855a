// The load generator, run as its own process: drives pre-signed requests at the gateway with
// autocannon and prints autocannon's result as JSON on stdout. Every request is signed by
// its agent with its own nonce before the clock starts.
// argv[2]: path of a JSON file { url, audience, method, target, body?, connections,
//   durationSeconds? (else: send every request once), headers?,
//   signers?: [{ secretKeyHex, agentId, count, headers?, scheme?: 'service-auth-v1' | 'rfc9421' }] }
// Without signers the requests are public (unsigned) and the run needs durationSeconds.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { messageSignedHeaders, nodeKey, signedHeaders } from './signed-requests.mjs';

const options = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const started = Date.now();
const signed = (options.signers ?? []).flatMap((signer) => {
  const privateKey = nodeKey(Buffer.from(signer.secretKeyHex, 'hex'));
  return Array.from({ length: signer.count }, () => ({
    ...signer.headers,
    ...(signer.scheme === 'rfc9421' ? messageSignedHeaders : signedHeaders)({
      privateKey,
      secretKeyHex: signer.secretKeyHex,
      agentId: signer.agentId,
      audience: options.audience,
      method: options.method,
      target: options.target,
      body: options.body,
    }),
  }));
});
process.stderr.write(`signed ${signed.length} requests in ${Date.now() - started} ms\n`);

let next = 0;
const cpuBefore = process.cpuUsage();
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  ...(options.durationSeconds ? { duration: options.durationSeconds } : { amount: signed.length }),
  requests: [
    {
      method: options.method,
      path: options.target,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body ? { body: options.body } : {}),
      ...(options.signers && {
        setupRequest: (request) => {
          const headers = signed[next++];
          if (!headers) throw new Error('ran out of pre-signed requests; raise count');
          return {
            ...request,
            headers: {
              ...request.headers,
              ...headers,
              ...(options.body ? { 'content-type': 'application/json' } : {}),
            },
          };
        },
      }),
    },
  ],
});
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify({ ...result, used: next, cpuSeconds: (cpu.user + cpu.system) / 1e6 }));
