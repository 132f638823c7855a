import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` with `requestId` as the current request: every log line inside carries it. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The request being handled by this async flow, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
