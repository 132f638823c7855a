import { directory } from '@townhall/directory/service';
import { engagement } from '@townhall/engagement/service';
import { events } from '@townhall/events/service';
import type { AnyDomainService } from '@townhall/platform/service';
import { ticketing } from '@townhall/ticketing/service';
import { webhooks } from '@townhall/webhooks/service';

/**
 * The domain services, in the order they start (the list package.json "townhall.services" names
 * for the launcher and the tests; domain-services.spec.ts holds them equal).
 */
export const DOMAIN_SERVICES: readonly AnyDomainService[] = [
  directory,
  events,
  ticketing,
  engagement,
  webhooks,
];
