import { TOWNHALL_STREAM, TOWNHALL_SUBJECTS } from '@townhall/contracts';
import { natsServers as natsServerList } from '@townhall/platform';

type Json = Record<string, unknown>;

/**
 * NATS_URL (a comma-separated list of servers) by host and port only: user, password and token
 * stay out. Without NATS (standalone mode) a placeholder the reader fills in.
 */
export function natsServers(natsUrl: string | undefined): Record<string, Json> {
  const hosts = [
    ...new Set(
      natsServerList(natsUrl ?? '')
        .map((url) => hostOf(url))
        .filter((host): host is string => host !== undefined),
    ),
  ];
  const description = `NATS with JetStream: the stream ${TOWNHALL_STREAM} keeps \`${TOWNHALL_SUBJECTS}\``;
  if (hosts.length === 0)
    return {
      nats: {
        host: '{host}',
        protocol: 'nats',
        description: `${description}. This gateway runs without NATS (standalone mode): name your server.`,
        variables: { host: { default: 'localhost:4222', description: 'Your NATS server, host:port' } },
      },
    };
  return Object.fromEntries(
    hosts.map((host, index) => [
      index === 0 ? 'nats' : `nats-${index + 1}`,
      { host, protocol: 'nats', description },
    ]),
  );
}

function hostOf(url: string): string | undefined {
  if (url === '') return undefined;
  try {
    const parsed = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(url) ? url : `nats://${url}`);
    if (parsed.hostname === '') return undefined;
    return parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname;
  } catch {
    return undefined;
  }
}
