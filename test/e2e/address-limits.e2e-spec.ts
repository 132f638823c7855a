// Strangers pay before we do (issue [20] item 4): a client address's signed requests are counted
// before their signature is looked at, and an address whose signatures keep failing is blocked,
// so a flood of forged signatures costs a bounded number of Ed25519 verifies. Proven in both modes
// from outside: the verifies are read from the gateway's own counter on its operators' port
// (townhall_signature_verifications_total in Prometheus /metrics), two replicas sharing Redis in
// distributed mode, the standalone process's --probe-port in standalone mode. The gateways trust
// X-Forwarded-For from loopback, so each test names the client address it sends from.
import { generateAgentKey, signRequest, type AgentKey } from '@townhall/auth';
import { StandaloneProcess, Topology } from '@townhall/testing';

const THRESHOLD = 20;
const PER_SECOND = 50;
const LIMITS = {
  TRUST_PROXY: 'loopback',
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: String(PER_SECOND),
  AUTH_FAILURES_PER_ADDRESS: String(THRESHOLD),
  AUTH_FAILURE_WINDOW_SECONDS: '60',
  AUTH_FAILURE_BLOCK_SECONDS: '300',
  // The agents' own limits stay out of the way: what is measured is the address's.
  RATE_LIMIT_WRITES_PER_SECOND: '0',
  RATE_LIMIT_READS_PER_SECOND: '0',
};
/** Requests sent at once: the most that can be past the check when the block starts. */
const CONCURRENCY = 10;

interface Deployment {
  /** Where requests go, in turn (two replicas in distributed mode). */
  gateways: string[];
  /** The operators' ports whose /metrics count the verifies of those gateways. */
  probes: string[];
  audience: string;
  stop(): Promise<void>;
}

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

async function distributed(): Promise<Deployment> {
  const topology = await Topology.start({ env: LIMITS });
  const replica = await topology.startGateway();
  return {
    gateways: [topology.baseUrl, replica.url],
    probes: [`http://127.0.0.1:${topology.gateway.env['PROBE_PORT']}`, replica.probeUrl],
    audience: topology.baseUrl,
    stop: () => topology.stop(),
  };
}

async function standalone(): Promise<Deployment> {
  const process = await StandaloneProcess.start(LIMITS, 0, { args: ['--probe-port', '0'] });
  const probePort = /Probes\s+http:\/\/localhost:(\d+)/.exec(process.log)?.[1];
  if (!probePort) {
    await process.stop();
    throw new Error(`no probe port in the banner:\n${process.log}`);
  }
  return {
    gateways: [process.baseUrl],
    probes: [`http://127.0.0.1:${probePort}`],
    audience: `http://localhost:${new URL(process.baseUrl).port}`,
    stop: () => process.stop(),
  };
}

/** Signature checks the gateways ran so far, by outcome, summed over every gateway. */
async function verifies(deployment: Deployment): Promise<{ verified: number; refused: number }> {
  const total = { verified: 0, refused: 0 };
  for (const probe of deployment.probes) {
    const text = await (await fetch(`${probe}/metrics`)).text();
    for (const outcome of ['verified', 'refused'] as const) {
      const match = new RegExp(
        `^townhall_signature_verifications_total\\{outcome="${outcome}"\\} (\\d+)`,
        'm',
      ).exec(text);
      total[outcome] += match ? Number(match[1]) : 0;
    }
  }
  return total;
}

describe.each([
  ['distributed (two gateways, one Redis)', distributed],
  ['standalone', standalone],
])('per-address limits before any verify: %s', (mode, start) => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await start();
  });
  afterAll(async () => {
    await deployment?.stop();
  });

  /**
   * A signed PUT /directory/me (a new agent's card: 201) from `address`; `forged`: the body is
   * changed after signing, so that the signature is checked and fails.
   */
  async function put(key: AgentKey, address: string, index: number, forged: boolean): Promise<Answer> {
    const body = JSON.stringify({ handle: `agent_${index}` });
    const auth = signRequest({
      key,
      audience: deployment.audience,
      method: 'PUT',
      target: '/directory/me',
      body,
    });
    const gateway = deployment.gateways[index % deployment.gateways.length]!;
    const response = await fetch(`${gateway}/directory/me`, {
      method: 'PUT',
      headers: {
        authorization: auth.authorization,
        'x-nonce': auth.nonce,
        'content-type': 'application/json',
        'x-forwarded-for': address,
      },
      body: forged ? JSON.stringify({ handle: `forged_${index}` }) : body,
    });
    const text = await response.text();
    const code = /json/.test(response.headers.get('content-type') ?? '')
      ? (JSON.parse(text) as { code?: string }).code
      : undefined;
    return { status: response.status, code, retryAfter: response.headers.get('retry-after') };
  }

  it('cuts 500 forged signatures from one address off with 429 long before the 500th verify', async () => {
    const address = '198.51.100.20';
    const before = await verifies(deployment);
    const answers: Answer[] = [];
    for (let sent = 0; sent < 500; sent += CONCURRENCY)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: CONCURRENCY }, (_, i) => put(generateAgentKey(), address, sent + i, true)),
        )),
      );
    const after = await verifies(deployment);
    const spent = after.refused - before.refused;

    const refusedAsForged = answers.filter((answer) => answer.status === 401);
    const blocked = answers.filter((answer) => answer.status === 429);
    expect(refusedAsForged.every((answer) => answer.code === 'auth.signature_invalid')).toBe(true);
    expect(blocked.every((answer) => answer.code === 'auth.address_blocked')).toBe(true);
    expect(refusedAsForged.length + blocked.length).toBe(500);
    // Every 401 cost one verify, and no 429 did; the block starts past THRESHOLD failures, with
    // at most the requests then in flight (CONCURRENCY on each gateway) verified after it.
    expect(spent).toBe(refusedAsForged.length);
    expect(spent).toBeGreaterThan(THRESHOLD);
    expect(spent).toBeLessThanOrEqual(THRESHOLD + 1 + CONCURRENCY * deployment.gateways.length);
    // Once blocked, blocked until the end: the last answers are all 429 with the time left.
    for (const answer of answers.slice(-100)) {
      expect(answer.status).toBe(429);
      expect(Number(answer.retryAfter)).toBeGreaterThan(250);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(300);
    }
    process.stdout.write(`${mode}: 500 forged signatures from one address cost ${spent} verifies\n`);

    // The address is blocked whatever it sends, a valid signature included, before any verify.
    const valid = await put(generateAgentKey(), address, 1_000, false);
    expect(valid).toMatchObject({ status: 429, code: 'auth.address_blocked' });
    expect(await verifies(deployment)).toEqual(after);
    // Another address is not.
    expect(await put(generateAgentKey(), '198.51.100.21', 1_001, false)).toMatchObject({ status: 201 });
  });

  it('blocks an IPv6 address by its /64: another address of the same network is refused too', async () => {
    const network = '2001:db8:20:1';
    for (let i = 0; i <= THRESHOLD; i++)
      expect((await put(generateAgentKey(), `${network}::${i + 1}`, i, true)).status).toBe(401);
    expect(await put(generateAgentKey(), `${network}::ffff`, 100, false)).toMatchObject({
      status: 429,
      code: 'auth.address_blocked',
    });
    expect(await put(generateAgentKey(), '2001:db8:20:2::1', 101, false)).toMatchObject({ status: 201 });
  });

  it('answers a burst past RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND with 429 rate.limited before verifying it', async () => {
    const before = await verifies(deployment);
    const answers = await Promise.all(
      Array.from({ length: PER_SECOND * 2 }, (_, i) => put(generateAgentKey(), '198.51.100.22', i, false)),
    );
    const after = await verifies(deployment);
    const served = answers.filter((answer) => answer.status === 201); // each a new agent's card
    const limited = answers.filter((answer) => answer.status === 429);
    expect(served.length + limited.length).toBe(PER_SECOND * 2);
    expect(limited.every((answer) => answer.code === 'rate.limited' && Number(answer.retryAfter) >= 1)).toBe(
      true,
    );
    // One second's budget (two if the burst straddled the window's end), and only those verified.
    expect(served.length).toBeGreaterThanOrEqual(PER_SECOND);
    expect(served.length).toBeLessThanOrEqual(PER_SECOND * 2 - 1);
    expect(after.verified - before.verified).toBe(served.length);
  });
});
