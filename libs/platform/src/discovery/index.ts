// Jobs and consumers found by the platform: methods marked @Periodic and @OnDomainEvent on a
// service's providers are discovered when it starts (service-handlers.ts), checked, run, and
// stopped with it.
export { Periodic, type PeriodicOptions, type NumericSetting } from './periodic.js';
export { OnDomainEvent, type OnDomainEventOptions } from './on-domain-event.js';
export { HandlerDeclarationError } from './handler-declarations.js';
