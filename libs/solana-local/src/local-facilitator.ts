import { x402Facilitator } from '@x402/core/facilitator';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import type { LocalChain } from './local-chain.js';

/**
 * The official x402 facilitator (`x402Facilitator` from @x402/core/facilitator) with @x402/svm's exact scheme
 * registered for chain.network over chain.signer: every check of a payment is x402's own, only the chain
 * under it is local.
 */
export function createLocalFacilitator(chain: LocalChain): x402Facilitator {
  // LocalChain.open accepted the network only as a CAIP-2 id, which is what x402's Network type spells.
  const network = chain.network as `${string}:${string}`;
  return new x402Facilitator().register(network, new ExactSvmScheme(chain.signer));
}
