import { TownhallError } from '@townhall/sdk';

/** The TownhallError a request fails with; fails the test if it succeeds or fails otherwise. */
export async function problemOf(promise: Promise<unknown>): Promise<TownhallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TownhallError) return error;
    throw error;
  }
  throw new Error('expected the request to fail with a problem, but it succeeded');
}
