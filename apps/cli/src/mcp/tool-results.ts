import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TownhallError } from '@townhall/sdk';
import { isUnreachable, Refusal, UsageError } from '../failure.js';

/** A tool's answer: the structured result its outputSchema describes, and a short text for the model. */
export function answer<T extends object>(structured: T, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

/**
 * A refusal as a tool error (`isError`), never a thrown error that could end the session: the
 * problem's stable code, its detail and what else it says, as JSON a model can read and a program
 * can parse. No structured content: that is the successful result's shape, and clients check it.
 */
export function refusal(code: string, detail: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code, detail, ...extra }) }] };
}

/**
 * Runs a tool: Townhall's refusals (problem+json), the CLI's own (a tier to choose) and a server
 * that does not answer become tool errors with a stable code. Anything else (a bug) the SDK
 * answers as a tool error with its message; none ends the session.
 */
export async function calling(url: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TownhallError) {
      return refusal(error.code, error.problem.detail || error.problem.title, {
        status: error.status,
        ...(error.problem.errors ? { errors: error.problem.errors } : {}),
      });
    }
    if (error instanceof Refusal) return refusal(error.code, error.message);
    if (error instanceof UsageError) return refusal('validation.failed', error.message);
    if (isUnreachable(error))
      return refusal('network.unreachable', `Nothing answers at ${url}: is Townhall running?`);
    if (error instanceof Error && error.message === 'fetch failed')
      return refusal(
        'network.failed',
        `The request to ${url} failed: ${String((error.cause as Error | undefined)?.message ?? '')}`,
      );
    throw error;
  }
}
