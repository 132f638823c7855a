// What only a server runs: the facilitator clients (@x402/core's HTTPFacilitatorClient, the
// official x402Facilitator in process). A separate entry (`@townhall/x402/server`) because
// @x402/core/http brings the resource-server module along, which the SDK (browsers) must not load.
export * from './server/facilitators.js';
