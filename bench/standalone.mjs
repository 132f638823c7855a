// The standalone scenario of `npm run bench`: `npm start` on a new data folder, timed from the
// command to a ready /readyz (the build included, as a person types it); its resident memory after
// a small workload of every kind of call (from its own /metrics); then a restart on that folder,
// timed the same way. Run before the distributed topology boots, on a quiet machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '@townhall/sdk';
import { ROOT } from '../tools/launcher.mjs';

const AGENTS = 40;

export async function measureStandalone({ port, probePort }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'townhall-bench-standalone-'));
  try {
    const first = await startTimed(dataDir, port, probePort);
    let rssMb;
    try {
      // The signing audience is the origin standalone names itself by: http://localhost:<port>.
      await workload(`http://localhost:${port}`);
      rssMb = await residentMb(probePort);
    } finally {
      await first.stop();
    }
    const restart = await startTimed(dataDir, port, probePort);
    await restart.stop();
    return {
      scenario: `standalone: npm start on a new data folder, ${AGENTS} agents' workload, restart`,
      firstStartMs: first.readyMs,
      restartMs: restart.readyMs,
      rssMbAfterWorkload: rssMb,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `npm start` until its /readyz answers 200; `stop()` sends SIGINT and waits for the exit. */
async function startTimed(dataDir, port, probePort) {
  const started = performance.now();
  const child = spawn(
    'npm',
    ['start', '--', '--data-dir', dataDir, '--port', String(port), '--probe-port', String(probePort)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      // The workload's 40 agents call from one address, past the signed requests an address may
      // send (RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND), which the distributed topology raises too.
      env: { ...process.env, RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: '1000000' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {
      // already gone
    }
    await exited;
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${stderr}`);
    if (performance.now() - started > 60_000) {
      await stop();
      throw new Error(`npm start was not ready within 60 s: ${stderr}`);
    }
    const ready = await fetch(`http://127.0.0.1:${probePort}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return { readyMs: Math.round(performance.now() - started), stop };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Cards, an event, free tickets, questions, upvotes and public reads: every service at work. */
async function workload(baseUrl) {
  const host = new AgentClient({ baseUrl });
  await host.directory.putMe({ handle: 'bench_host' });
  const startsAt = new Date(Date.now() + 3_600_000);
  const event = await host.events.create({
    title: 'Bench: standalone AMA',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
    timezone: 'UTC',
    capacity: 1_000,
  });
  await host.events.start(event.id);
  const agents = Array.from({ length: AGENTS }, () => new AgentClient({ baseUrl }));
  /** Each agent's questions, by the agent's index. */
  const asked = await Promise.all(
    agents.map(async (agent, i) => {
      await agent.directory.putMe({ handle: `bench_agent_${i}` });
      await agent.tickets.rsvp(event.id);
      const own = [];
      for (let q = 0; q < 3; q++)
        own.push(await agent.questions.submit(event.id, `Question ${q} from agent ${i}`));
      return own;
    }),
  );
  await Promise.all(
    agents.map(async (agent, i) => {
      // Another agent's question each time: never one's own.
      for (let k = 1; k <= 5; k++) await agent.questions.upvote(event.id, asked[(i + k) % AGENTS][k % 3].id);
      await agent.events.list();
      await agent.questions.list(event.id, { sort: 'top' });
    }),
  );
}

/** The process's own resident memory, from its Prometheus metrics. */
async function residentMb(probePort) {
  const text = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('process_resident_memory_bytes'));
  if (!line) throw new Error('no process_resident_memory_bytes in /metrics');
  return Math.round(Number(line.split(/\s+/).at(-1)) / 1e6);
}
