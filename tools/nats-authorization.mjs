// `npm run nats:authorization`: writes who may do what on the bus, generated from
// libs/contracts/src/bus-access.ts (natsAuthorizationConf in libs/platform), to the two files that
// ship it: k8s/nats-authorization.conf (a nats-server include: npm run start:distributed and the
// tests start nats-server with it) and the same text in k8s/nats-values.yaml (the Helm chart's
// ConfigMap). test/deploy/nats-authorization.spec.ts fails while either differs from the code.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { natsAuthorizationConf } from '@townhall/platform';

const CONF = new URL('../k8s/nats-authorization.conf', import.meta.url);
const VALUES = new URL('../k8s/nats-values.yaml', import.meta.url);
/** The file's name in the chart's ConfigMap (config.merge.00$include names it). */
const INCLUDED_AS = 'townhall-authorization.conf';

const conf = natsAuthorizationConf();
writeFileSync(CONF, conf);
const values = parseDocument(readFileSync(VALUES, 'utf8'));
const text = values.createNode(conf);
text.type = 'BLOCK_LITERAL';
values.setIn(['configMap', 'merge', 'data', INCLUDED_AS], text);
writeFileSync(VALUES, values.toString({ lineWidth: 0 }));
console.log(`wrote ${CONF.pathname} and ${INCLUDED_AS} in ${VALUES.pathname}`);
