// Standalone is local unless told otherwise (issue [20] item 6): `npm start` listens on 127.0.0.1
// only, `--host` lets other machines in, and then webhooks to private addresses are refused; no
// delivery record shows what the receiver answered. Where a process listens is read from the
// kernel's socket table (/proc/net/tcp and tcp6), so no test sends traffic beyond 127.0.0.1.
import { readFileSync } from 'node:fs';
import type { EventFieldsInput, WebhookAttemptView } from '@townhall/contracts';
import { AgentClient } from '@townhall/sdk';
import { problemOf, StandaloneProcess, waitFor, WebhookReceiver } from '@townhall/testing';

const HOUR = 3_600_000;

function anEvent(title: string): EventFieldsInput {
  const startsAt = new Date(Date.now() + HOUR);
  return {
    title,
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
  };
}

/** The addresses something listens on at `port` (TCP LISTEN sockets), e.g. ['127.0.0.1']. */
function listeningAddresses(port: number): string[] {
  const addresses: string[] = [];
  for (const [file, family] of [
    ['/proc/net/tcp', 4],
    ['/proc/net/tcp6', 6],
  ] as const) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 on this machine
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hex = '', portHex = ''] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      addresses.push(family === 4 ? ipv4Of(hex) : ipv6Of(hex));
    }
  }
  return addresses.sort();
}

/** /proc/net/tcp writes an IPv4 address as one little-endian 32-bit word in hex. */
function ipv4Of(hex: string): string {
  return [6, 4, 2, 0].map((at) => parseInt(hex.slice(at, at + 2), 16)).join('.');
}

/** ... and an IPv6 address as four such words. */
function ipv6Of(hex: string): string {
  const groups: string[] = [];
  for (let word = 0; word < 4; word++) {
    const bytes = [6, 4, 2, 0].map((at) => hex.slice(word * 8 + at, word * 8 + at + 2));
    groups.push(`${bytes[0]}${bytes[1]}`, `${bytes[2]}${bytes[3]}`);
  }
  return groups.map((group) => parseInt(group, 16).toString(16)).join(':');
}

const portOf = (url: string) => Number(new URL(url).port);

describe('standalone: local unless told otherwise', () => {
  it('listens on 127.0.0.1 only by default, says so in the banner, and keeps the probe port there too', async () => {
    const standalone = await StandaloneProcess.start({}, 0, { args: ['--probe-port', '0'] });
    try {
      const port = portOf(standalone.baseUrl);
      expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
      expect(standalone.log).toContain(`listening on 127.0.0.1:${port}: this machine only`);
      const probePort = Number(/Probes\s+http:\/\/localhost:(\d+)/.exec(standalone.log)?.[1]);
      expect(probePort).toBeGreaterThan(0);
      expect(listeningAddresses(probePort)).toEqual(['127.0.0.1']);
      expect((await fetch(`${standalone.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await standalone.stop();
    }
  });

  it('with --host 0.0.0.0 listens on every interface and refuses webhooks to private addresses', async () => {
    const receiver = await WebhookReceiver.start();
    const standalone = await StandaloneProcess.start({}, 0, { args: ['--host', '0.0.0.0'] });
    try {
      const port = portOf(standalone.baseUrl);
      expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
      expect(standalone.log).toContain(`listening on 0.0.0.0:${port}: other machines may connect`);
      const agent = new AgentClient({ baseUrl: standalone.baseUrl, audience: `http://localhost:${port}` });
      const refused = await problemOf(
        agent.webhooks.create({ url: receiver.url(), types: ['townhall.event.*'] }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'webhook.url_refused' });
      expect(receiver.received).toEqual([]);
    } finally {
      await standalone.stop();
      await receiver.stop();
    }
  });

  it('refuses to start with WEBHOOK_ALLOW_PRIVATE=true on another address than loopback, naming both', async () => {
    const started = StandaloneProcess.start({ WEBHOOK_ALLOW_PRIVATE: 'true' }, 0, {
      args: ['--host', '0.0.0.0'],
    });
    await expect(started).rejects.toThrow(
      /exited with 78 before it ran[\s\S]*WEBHOOK_ALLOW_PRIVATE[\s\S]*0\.0\.0\.0/,
    );
  });

  it('keeps no receiver body in a delivery record: the status and the time only', async () => {
    const receiver = await WebhookReceiver.start(() => 500); // answers 'receiver says no'
    const standalone = await StandaloneProcess.start({
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    });
    try {
      const port = portOf(standalone.baseUrl);
      const host = new AgentClient({ baseUrl: standalone.baseUrl, audience: `http://localhost:${port}` });
      const webhook = await host.webhooks.create({ url: receiver.url(), types: ['townhall.event.*'] });
      await host.events.create(anEvent('A webhook that fails'));
      await receiver.waitFor(2);
      const attempts = await waitFor('two recorded attempts', async () => {
        const page = await host.webhooks.deliveries(webhook.id);
        return page.items.length >= 2 ? page.items : undefined;
      });
      for (const attempt of attempts as WebhookAttemptView[]) {
        expect(attempt).toMatchObject({ status: 500, error: 'HTTP 500', outcome: 'retrying' });
        expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      }
      // Nowhere in what the API answers: not in `error`, not in any other field.
      const raw = await host.request('GET', `/webhooks/${webhook.id}/deliveries`);
      expect(JSON.stringify(raw.data)).not.toContain('receiver says no');
    } finally {
      await standalone.stop();
      await receiver.stop();
    }
  });
});
