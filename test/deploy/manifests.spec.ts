// k8s/: both overlays render (kubectl's kustomize, offline), every object validates against the
// Kubernetes schemas (no unknown fields either), and the objects say what k8s/README.md says.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BUS_APPS } from '@townhall/contracts';
import { APPS, REPO_ROOT } from '@townhall/testing';
import { findKubectl, render } from './kustomize.js';
import { schemaErrors, UnknownFieldChecker, type KubernetesObject } from './kubernetes-schema.js';
import { alertRules, parsePromql, PROMETHEUS_RULE_FILE } from './promql.js';

const OVERLAYS = {
  staging: { namespace: 'townhall-staging', env: 'staging', natsServers: 1, streamReplicas: '1' },
  production: { namespace: 'townhall-production', env: 'production', natsServers: 3, streamReplicas: '3' },
} as const;
type Overlay = keyof typeof OVERLAYS;

const SERVICES = APPS.services;
const GATEWAY = APPS.gateway;
const ALL_APPS = [GATEWAY, ...SERVICES];
const AUTOSCALED = [GATEWAY, 'engagement'];
const PROBE_PORT = 9464;
const GATEWAY_PORT = 3000;
const SECRET = 'townhall-secrets';
/** Each app's password as a NATS user of its own (k8s/nats-authorization.conf). */
const NATS_PASSWORD_KEYS = [...BUS_APPS].map((app) => `nats-password-${app}`);
const SECRET_KEYS = [
  'database-migrate-url',
  'database-url',
  'redis-url',
  'x402-facilitator-url',
  'webhook-signing-key',
  'receipt-signing-key',
  ...NATS_PASSWORD_KEYS,
];
const RUNBOOK = 'https://github.com/townhall-agents/townhall/blob/main/k8s/README.md';

// Loose shapes of what the assertions read (the schemas above check the real shapes).
interface Probe {
  httpGet?: { path?: string; port?: number | string };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  containers: Container[];
  restartPolicy?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  topologySpreadConstraints?: {
    topologyKey: string;
    labelSelector?: { matchLabels?: Record<string, string> };
  }[];
  affinity?: { podAntiAffinity?: unknown };
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}
interface NetworkPolicyPeer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: unknown;
}
interface NetworkPolicyRule {
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
  ports?: { protocol?: string; port?: number | string }[];
}
interface NetworkPolicySpec {
  podSelector: { matchLabels?: Record<string, string> };
  policyTypes?: string[];
  ingress?: NetworkPolicyRule[];
  egress?: NetworkPolicyRule[];
}

const rendered = {} as Record<Overlay, KubernetesObject[]>;
/** One TypeScript program for the kinds of both overlays (building one takes a second or two). */
let unknown: UnknownFieldChecker;

beforeAll(() => {
  const kubectl = findKubectl(REPO_ROOT);
  for (const overlay of Object.keys(OVERLAYS) as Overlay[]) {
    rendered[overlay] = render(kubectl, REPO_ROOT, `k8s/overlays/${overlay}`);
  }
  unknown = UnknownFieldChecker.create(REPO_ROOT, Object.values(rendered).flat());
});

function find(objects: KubernetesObject[], kind: string, name: string): KubernetesObject {
  const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
  if (!object) throw new Error(`no ${kind} ${name}`);
  return object;
}
const spec = <T>(object: KubernetesObject) => object['spec'] as T;
const template = (object: KubernetesObject) => spec<{ template: PodTemplate }>(object).template;
const container = (object: KubernetesObject) => template(object).spec.containers[0]!;
const configOf = (objects: KubernetesObject[]) => {
  const configMaps = objects.filter((object) => object.kind === 'ConfigMap');
  expect(configMaps).toHaveLength(1);
  return configMaps[0]!['data'] as Record<string, string>;
};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
const ports = (rules: NetworkPolicyRule[] | undefined) =>
  (rules ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => port.port)).sort();

describe.each(Object.keys(OVERLAYS) as Overlay[])('k8s/overlays/%s', (overlay) => {
  const expected = OVERLAYS[overlay];
  const objects = () => rendered[overlay];

  it('renders, every object in the overlay namespace, which it creates with Pod Security "restricted"', () => {
    expect(objects().length).toBeGreaterThan(20);
    const namespaces = objects().filter((object) => object.kind === 'Namespace');
    expect(namespaces.map((namespace) => namespace.metadata.name)).toEqual([expected.namespace]);
    expect(namespaces[0]!.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
    for (const object of objects().filter((candidate) => candidate.kind !== 'Namespace'))
      expect([object.kind, object.metadata.namespace]).toEqual([object.kind, expected.namespace]);
  });

  it('validates every object against the Kubernetes schemas, with no unknown fields', async () => {
    const problems: string[] = [];
    for (const object of objects()) {
      const where = `${object.kind} ${object.metadata.name}`;
      for (const error of await schemaErrors(object)) problems.push(`${where}: ${error}`);
      for (const field of unknown.unknownFields(object)) problems.push(`${where}: unknown field ${field}`);
    }
    expect(problems).toEqual([]);
  });

  it('has a Deployment, Service and PodDisruptionBudget per app, HPAs for the gateway and engagement', () => {
    for (const app of ALL_APPS) {
      const deployment = find(objects(), 'Deployment', app);
      const labels = template(deployment).metadata.labels;
      const service = find(objects(), 'Service', app);
      expect(matches(spec<{ selector: Record<string, string> }>(service).selector, labels)).toBe(true);
      const named = new Set((container(deployment).ports ?? []).map((port) => port.name));
      for (const port of spec<{ ports: { targetPort: string }[] }>(service).ports)
        expect(named).toContain(port.targetPort);
      const pdb = find(objects(), 'PodDisruptionBudget', app);
      expect(
        matches(
          spec<{ selector: { matchLabels: Record<string, string> } }>(pdb).selector.matchLabels,
          labels,
        ),
      ).toBe(true);
    }
    const hpas = objects().filter((object) => object.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((hpa) => hpa.metadata.name).sort()).toEqual([...AUTOSCALED].sort());
    for (const hpa of hpas) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      const target = spec<{ scaleTargetRef: { kind: string; name: string } }>(hpa).scaleTargetRef;
      expect(target).toMatchObject({ kind: 'Deployment', name: hpa.metadata.name });
      // The HPA owns the replica count: a Deployment field would reset it on every apply.
      expect(
        spec<{ replicas?: number }>(find(objects(), 'Deployment', target.name)).replicas,
      ).toBeUndefined();
    }
  });

  it("probes: startup and liveness on /healthz on the app port, readiness on /readyz with every check (the operators' port)", () => {
    for (const app of ALL_APPS) {
      const main = container(find(objects(), 'Deployment', app));
      const port = app === GATEWAY ? GATEWAY_PORT : PROBE_PORT;
      const portName = main.ports?.find((candidate) => candidate.containerPort === port)?.name;
      expect(portName).toBeDefined();
      expect(main.startupProbe?.httpGet).toEqual({ path: '/healthz', port: portName });
      expect(main.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: portName });
      // The gateway's public /readyz is cached and says only ready or not.
      expect(main.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'probe' });
      const env = Object.fromEntries((main.env ?? []).map((variable) => [variable.name, variable.value]));
      if (app === GATEWAY) expect(env['PORT']).toBe(String(GATEWAY_PORT));
      // Every app serves /healthz, /readyz and /metrics on its operators' port, PROBE_PORT.
      expect(env['PROBE_PORT']).toBe(String(PROBE_PORT));
      expect(main.ports?.find((candidate) => candidate.containerPort === PROBE_PORT)?.name).toBe('probe');
      const annotations = template(find(objects(), 'Deployment', app)).metadata.annotations;
      expect(annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(PROBE_PORT),
        'prometheus.io/path': '/metrics',
      });
    }
  });

  it('runs every pod as non-root, read-only, without capabilities, with resources', () => {
    const workloads = objects().filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
    expect(workloads).toHaveLength(ALL_APPS.length + SERVICES.length);
    for (const workload of workloads) {
      const pod = template(workload).spec;
      // Pod Security "restricted" (the namespace enforces it): non-root, RuntimeDefault seccomp,
      // no privilege escalation, every capability dropped.
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const each of pod.containers) {
        expect(each.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(each.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
        expect(each.resources?.limits?.['memory']).toBeDefined();
      }
    }
    for (const app of ALL_APPS) {
      const pod = template(find(objects(), 'Deployment', app)).spec;
      const spread = (pod.topologySpreadConstraints ?? []).map((constraint) => constraint.topologyKey);
      expect(spread.length > 0 || pod.affinity?.podAntiAffinity !== undefined).toBe(true);
    }
  });

  it('has a migration Job per schema running the service image and its migrate command', () => {
    const jobs = objects().filter((object) => object.kind === 'Job');
    expect(jobs.map((job) => job.metadata.name).sort()).toEqual(
      SERVICES.map((service) => `${service}-migrate`).sort(),
    );
    for (const service of SERVICES) {
      const job = find(objects(), 'Job', `${service}-migrate`);
      const pod = template(job);
      expect(pod.spec.restartPolicy).toBe('Never');
      expect(pod.spec.containers[0]!.command).toEqual(['node', `apps/${service}/dist/migrate.js`]);
      expect(pod.spec.containers[0]!.image).toBe(container(find(objects(), 'Deployment', service)).image);
      expect(job.metadata['annotations']).toMatchObject({ 'argocd.argoproj.io/hook': 'PreSync' });
      // Migration pods are no backends of the Service and do not count in the PDB.
      for (const kind of ['Service', 'PodDisruptionBudget'] as const) {
        for (const selecting of objects().filter((object) => object.kind === kind)) {
          const selector =
            kind === 'Service'
              ? spec<{ selector: Record<string, string> }>(selecting).selector
              : spec<{ selector: { matchLabels: Record<string, string> } }>(selecting).selector.matchLabels;
          expect(matches(selector, pod.metadata.labels)).toBe(false);
        }
      }
    }
  });

  it('sets one image per app, tagged or pinned by digest', () => {
    for (const app of ALL_APPS) {
      const image = container(find(objects(), 'Deployment', app)).image;
      expect(image).toMatch(new RegExp(`(^|/)townhall/${app}(:[\\w][\\w.-]*|@sha256:[0-9a-f]{64})$`));
      expect(image).not.toMatch(/:latest$/);
    }
  });

  it('takes secrets only from the Secret townhall-secrets, which it does not render', () => {
    expect(objects().filter((object) => object.kind === 'Secret')).toEqual([]);
    const refs: { app: string; name: string; key: string }[] = [];
    for (const workload of objects().filter(
      (object) => object.kind === 'Deployment' || object.kind === 'Job',
    )) {
      for (const each of template(workload).spec.containers) {
        for (const variable of each.env ?? []) {
          if (/^(DATABASE_URL|REDIS_URL|X402_FACILITATOR_URL|WEBHOOK_SIGNING_KEY)$/.test(variable.name))
            expect(variable.value).toBeUndefined();
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) refs.push({ app: workload.metadata.name, name: ref.name, key: ref.key });
        }
        expect((each.envFrom ?? []).filter((source) => source.secretRef)).toEqual([]);
      }
    }
    expect(new Set(refs.map((ref) => ref.name))).toEqual(new Set([SECRET]));
    for (const ref of refs) expect(SECRET_KEYS).toContain(ref.key);
    const byApp = (app: string) => refs.filter((ref) => ref.app === app).map((ref) => ref.key);
    expect(byApp(GATEWAY)).toEqual(['nats-password-auth-gateway', 'redis-url']);
    // The receipts' private key is ticketing's alone; the gateway serves only the public set.
    expect(refs.filter((ref) => ref.key === 'receipt-signing-key').map((ref) => ref.app)).toEqual([
      'ticketing',
    ]);
    // Each app reaches NATS as its own user, with its own password and no other's.
    for (const app of BUS_APPS)
      expect(
        refs.filter((ref) => ref.key.startsWith('nats-password-') && ref.app === app).map((ref) => ref.key),
      ).toEqual([`nats-password-${app}`]);
    // The webhook signing key: the webhooks service's alone.
    expect(refs.filter((ref) => ref.key === 'webhook-signing-key').map((ref) => ref.app)).toEqual([
      'webhooks',
    ]);
    // Two database roles: the migration Jobs own the schemas, the apps may only read and write
    // rows (k8s/postgres-roles.sql; test/e2e/database-roles.e2e-spec.ts runs the product that way).
    for (const service of SERVICES) {
      expect(byApp(service)).toContain('database-url');
      expect(byApp(service)).not.toContain('database-migrate-url');
      expect(byApp(`${service}-migrate`)).toEqual(['database-migrate-url']);
    }
    const config = configOf(objects());
    for (const key of Object.keys(config))
      expect(key).not.toMatch(/PASSWORD|SECRET|TOKEN|DATABASE_URL|REDIS_URL/);
  });

  it('configures the environment name and public origin of the overlay', () => {
    const config = configOf(objects());
    expect(config['TOWNHALL_ENV']).toBe(expected.env);
    expect(config['PUBLIC_BASE_URL']).toMatch(/^https:\/\/[^/]+$/);
    // Production: the three nodes of the NATS cluster (k8s/README.md "NATS"), the stream on all three.
    const natsServers = config['NATS_URL']!.split(',');
    expect(natsServers).toHaveLength(expected.natsServers);
    for (const server of natsServers) expect(server).toMatch(/^nats:\/\/[a-z0-9.-]+:4222$/);
    expect(config['NATS_STREAM_REPLICAS']).toBe(expected.streamReplicas);
    // Every variable set (ConfigMap keys, container env) is one an app's config schema reads.
    const schemas = [
      ...ALL_APPS.map((app) => `apps/${app}/src/config.ts`),
      'libs/platform/src/config.ts',
    ].map((path) => readFileSync(join(REPO_ROOT, path), 'utf8'));
    const variables = new Set(Object.keys(config));
    for (const workload of objects().filter(
      (object) => object.kind === 'Deployment' || object.kind === 'Job',
    )) {
      for (const variable of container(workload).env ?? []) variables.add(variable.name);
    }
    for (const name of variables) {
      expect([name, schemas.some((schema) => new RegExp(`\\b${name}\\s*:`).test(schema))]).toEqual([
        name,
        true,
      ]);
    }
    for (const app of ALL_APPS) {
      const refs = container(find(objects(), 'Deployment', app)).envFrom ?? [];
      expect(refs.map((source) => source.configMapRef?.name)).toEqual([
        objects().find((object) => object.kind === 'ConfigMap')!.metadata.name,
      ]);
    }
  });

  it('routes the public origin to the gateway port "http", live streams without a proxy timeout', () => {
    const routes = objects().filter((object) => object.kind === 'HTTPRoute');
    expect(routes.map((route) => route.metadata.name)).toEqual([GATEWAY]);
    interface Rule {
      matches: { path: { type: string; value: string }; headers?: { name: string; value: string }[] }[];
      backendRefs: { kind?: string; name: string; port: number }[];
      timeouts?: { request?: string };
    }
    const route = spec<{ hostnames: string[]; parentRefs: { kind: string }[]; rules: Rule[] }>(routes[0]!);
    // Clients sign for PUBLIC_BASE_URL: the route serves exactly that host.
    expect(route.hostnames).toEqual([new URL(configOf(objects())['PUBLIC_BASE_URL']!).host]);
    expect(route.parentRefs.map((parent) => parent.kind)).toEqual(['Gateway']);
    const service = spec<{ ports: { name: string; port: number }[] }>(find(objects(), 'Service', GATEWAY));
    const http = service.ports.find((port) => port.name === 'http')!;
    expect(http.port).toBe(GATEWAY_PORT);
    for (const rule of route.rules)
      expect(rule.backendRefs).toEqual([{ kind: 'Service', name: GATEWAY, port: http.port }]);
    const live = route.rules.find((rule) =>
      rule.matches.some((match) =>
        match.headers?.some((header) => header.name === 'Accept' && header.value === 'text/event-stream'),
      ),
    );
    expect(live?.timeouts?.request).toBe('0s');
    const rest = route.rules.find((rule) => rule !== live)!;
    expect(rest.matches).toEqual([{ path: { type: 'PathPrefix', value: '/' } }]);
    expect(rest.timeouts?.request).toMatch(/^[1-9]\d*s$/);
  });

  it('scrapes every app with one ServiceMonitor, on the port the NetworkPolicies open to monitoring', () => {
    const monitors = objects().filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors).toHaveLength(1);
    const monitor = spec<{
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string; path: string }[];
      targetLabels: string[];
    }>(monitors[0]!);
    const services = objects().filter((object) => object.kind === 'Service');
    const selected = services.filter((service) =>
      matches(monitor.selector.matchLabels, service.metadata.labels ?? {}),
    );
    expect(selected.map((service) => service.metadata.name).sort()).toEqual([...ALL_APPS].sort());
    expect(monitor.endpoints).toEqual([
      expect.objectContaining({ port: 'probe', path: '/metrics', honorLabels: true }),
    ]);
    for (const service of selected) {
      const port = spec<{ ports: { name: string; port: number }[] }>(service).ports.find(
        (candidate) => candidate.name === 'probe',
      );
      expect(port?.port).toBe(PROBE_PORT);
    }
    // The alerts select on the label this carries over (app_kubernetes_io_part_of).
    expect(monitor.targetLabels).toEqual(['app.kubernetes.io/part-of']);
  });

  it('alerts with rules whose every runbook entry exists', () => {
    const rules = objects().filter((object) => object.kind === 'PrometheusRule');
    expect(rules).toHaveLength(1);
    const rendered = spec<{ groups: { rules: { alert: string }[] }[] }>(rules[0]!).groups.flatMap(
      (group) => group.rules,
    );
    expect(rendered.map((rule) => rule.alert)).toEqual(alertRules(REPO_ROOT).map((rule) => rule.alert));
  });
});

describe('the alerts (' + PROMETHEUS_RULE_FILE + ')', () => {
  const rules = alertRules(REPO_ROOT);
  const readme = readFileSync(join(REPO_ROOT, 'k8s/README.md'), 'utf8');
  // GitHub's anchors: the heading, lower-cased, without punctuation, spaces as hyphens.
  const anchors = new Set(
    [...readme.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  const runbook = readme.slice(readme.indexOf('## Runbook'));

  it('are named, unique, with a severity, a summary, a description and a runbook entry', () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Townhall[A-Z]\w+$/);
      expect(['critical', 'warning']).toContain(rule.labels?.['severity']);
      expect(rule.for).toMatch(/^\d+m$/);
      expect(rule.annotations?.['summary']).toBeTruthy();
      expect(rule.annotations?.['description']).toBeTruthy();
      const url = rule.annotations?.['runbook_url'] ?? '';
      expect(url).toBe(`${RUNBOOK}#${rule.alert.toLowerCase()}`);
      expect([rule.alert, anchors.has(rule.alert.toLowerCase())]).toEqual([rule.alert, true]);
    }
    // And the runbook has no entry for an alert that does not exist.
    const entries = [...runbook.matchAll(/^#### (Townhall\w+)$/gm)].map((match) => match[1]);
    expect(entries.sort()).toEqual(rules.map((rule) => rule.alert).sort());
  });

  it('parse as PromQL and select Townhall series only', () => {
    for (const rule of rules) {
      const parsed = parsePromql(rule.expr);
      expect([rule.alert, parsed.errors]).toEqual([rule.alert, []]);
      expect(parsed.selectors.length).toBeGreaterThan(0);
      for (const selector of parsed.selectors) {
        expect(selector.matchers).toContainEqual({
          label: 'app_kubernetes_io_part_of',
          op: '=',
          value: 'townhall',
        });
      }
    }
  });

  it('the parser itself catches a broken expression', () => {
    expect(parsePromql('sum by (namespace (rate(up[5m])').errors.length).toBeGreaterThan(0);
    expect(parsePromql('rate(x{a="b"}[5m]) > 0').selectors).toEqual([
      { metric: 'x', matchers: [{ label: 'a', op: '=', value: 'b' }] },
    ]);
  });
});

describe.each(Object.keys(OVERLAYS) as Overlay[])('k8s/overlays/%s, network', (overlay) => {
  const objects = () => rendered[overlay];

  it('denies by default; only the gateway accepts traffic from anywhere, on 3000', () => {
    const policies = objects().filter((object) => object.kind === 'NetworkPolicy');
    const policy = (name: string) => spec<NetworkPolicySpec>(find(policies, 'NetworkPolicy', name));
    const deny = policy('default-deny');
    expect(deny.podSelector).toEqual({});
    expect(deny.policyTypes?.sort()).toEqual(['Egress', 'Ingress']);
    expect(deny.ingress ?? []).toEqual([]);
    expect(deny.egress ?? []).toEqual([]);

    const dns = policy('allow-dns');
    expect(dns.podSelector).toEqual({});
    expect(dns.ingress ?? []).toEqual([]);
    expect(ports(dns.egress)).toEqual([53, 53]);

    // Prometheus, from the monitoring namespace, on the operators' port.
    const metricsOnly = {
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      ports: [{ protocol: 'TCP', port: PROBE_PORT }],
    };
    const gateway = policy(GATEWAY);
    expect(gateway.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': GATEWAY });
    expect(gateway.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: GATEWAY_PORT }] }, metricsOnly]);
    // NATS, Redis, and https to the key directories Signature-Agents name.
    expect(new Set(ports(gateway.egress))).toEqual(new Set([443, 4222, 6379]));
    for (const service of SERVICES) {
      const rules = policy(service);
      expect(rules.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': service });
      expect(rules.ingress).toEqual([metricsOnly]);
      // NATS, PostgreSQL; the webhooks service also https to agents' receivers.
      expect(new Set(ports(rules.egress))).toEqual(
        new Set(service === 'webhooks' ? [443, 4222, 5432] : [4222, 5432]),
      );
    }
    // ...on public addresses only: never the cluster's, the node's or the cloud's metadata.
    for (const app of ['webhooks', GATEWAY]) {
      const outside = policy(app).egress!.find((rule) => ports([rule]).includes(443))!;
      const blocks = (outside.to ?? []).map((peer) => peer.ipBlock as { cidr: string; except?: string[] });
      expect(blocks.map((block) => block.cidr)).toEqual(['0.0.0.0/0', '::/0']);
      for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16'])
        expect(blocks[0]!.except).toContain(range);
      for (const range of ['fc00::/7', 'fe80::/10', '::ffff:0:0/96'])
        expect(blocks[1]!.except).toContain(range);
    }
    const migrations = policy('migrations');
    expect(migrations.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/component': 'migration' });
    expect(migrations.ingress ?? []).toEqual([]);
    expect(ports(migrations.egress)).toEqual([5432]);
    // No other policy opens anything.
    expect(policies.map((object) => object.metadata.name).sort()).toEqual(
      ['default-deny', 'allow-dns', 'migrations', ...ALL_APPS].sort(),
    );
    // Every workload is selected by a policy of its own (besides the namespace-wide ones).
    for (const workload of objects().filter(
      (object) => object.kind === 'Deployment' || object.kind === 'Job',
    )) {
      const labels = template(workload).metadata.labels;
      const own = policies.filter(
        (candidate) =>
          Object.keys(spec<NetworkPolicySpec>(candidate).podSelector.matchLabels ?? {}).length > 0 &&
          matches(spec<NetworkPolicySpec>(candidate).podSelector.matchLabels, labels),
      );
      expect([workload.metadata.name, own.length]).toEqual([workload.metadata.name, 1]);
    }
  });
});

describe('the validation itself', () => {
  it('catches a wrong value and a misspelt field', async () => {
    const broken: KubernetesObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'broken', labels: { any: 'label' } },
      spec: {
        selector: { matchLabels: { app: 'broken' } },
        template: {
          metadata: { labels: { app: 'broken' } },
          spec: {
            containers: [
              {
                name: 'broken',
                image: 'broken:1',
                imagePullPolicy: 'Sometimes',
                readinesProbe: { httpGet: { path: '/readyz', port: 'http' } },
                resources: { limits: { memory: '512Mi' } },
              },
            ],
          },
        },
      },
    };
    expect((await schemaErrors(broken)).join()).toContain(
      'imagePullPolicy must be equal to one of the allowed values',
    );
    expect(unknown.unknownFields(broken)).toEqual(['.spec.template.spec.containers[0].readinesProbe']);
  });
});

describe('the validation of the CRDs (Prometheus Operator, Gateway API)', () => {
  it('catches a misspelt field and a wrong value', async () => {
    const monitor: KubernetesObject = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: 'broken' },
      spec: { selector: {}, endpoints: [{ port: 'probe', intervall: '30s' }] },
    };
    expect(unknown.unknownFields(monitor)).toEqual(['.spec.endpoints[0].intervall']);
    const route: KubernetesObject = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'broken' },
      spec: { rules: [{ timeouts: { request: 'soon' } }] },
    };
    expect((await schemaErrors(route)).join()).toMatch(/timeouts\/request must match pattern/);
  });
});

describe('the overlays', () => {
  it('differ in origin, environment, replicas, resources and image tags', () => {
    const { staging, production } = rendered;
    for (const key of ['PUBLIC_BASE_URL', 'TOWNHALL_ENV']) {
      expect(configOf(staging)[key]).not.toBe(configOf(production)[key]);
    }
    const count = (objects: KubernetesObject[], app: string) =>
      AUTOSCALED.includes(app)
        ? spec<{ minReplicas: number }>(find(objects, 'HorizontalPodAutoscaler', app)).minReplicas
        : spec<{ replicas: number }>(find(objects, 'Deployment', app)).replicas;
    for (const app of ALL_APPS) {
      expect(count(production, app)).toBeGreaterThan(count(staging, app));
      expect(count(production, app)).toBeGreaterThanOrEqual(2); // a PDB and spread need two
      const resources = (objects: KubernetesObject[]) =>
        container(find(objects, 'Deployment', app)).resources;
      expect(resources(production)).not.toEqual(resources(staging));
      const image = (objects: KubernetesObject[]) => container(find(objects, 'Deployment', app)).image;
      expect(image(production)).not.toBe(image(staging));
    }
  });

  it('keep the example Secret out of every kustomization, with exactly the keys the apps use', async () => {
    const kustomizations = (dir: string): { resources?: string[]; components?: string[] }[] =>
      readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? kustomizations(join(dir, entry.name))
          : entry.name === 'kustomization.yaml'
            ? [parse(readFileSync(join(REPO_ROOT, dir, entry.name), 'utf8'))]
            : [],
      );
    const listed = kustomizations('k8s').flatMap((k) => [...(k.resources ?? []), ...(k.components ?? [])]);
    expect(listed.length).toBeGreaterThan(10);
    for (const entry of listed) expect(entry).not.toMatch(/secret/i);
    const example = parse(
      readFileSync(join(REPO_ROOT, 'k8s/secret.example.yaml'), 'utf8'),
    ) as KubernetesObject;
    expect(await schemaErrors(example)).toEqual([]);
    expect(example.metadata.name).toBe(SECRET);
    expect(Object.keys(example['stringData'] as object).sort()).toEqual(
      SECRET_KEYS.filter((key) => key !== 'x402-facilitator-url').sort(),
    );
    for (const value of Object.values(example['stringData'] as Record<string, string>)) {
      expect(value).toContain('CHANGE-ME');
    }
  });
});
