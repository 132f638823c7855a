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

/** How a request was refused, as `{ status, code }`: what most refusal assertions compare. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const { status, code } = await problemOf(promise);
  return { status, code };
}
