import type { PollView } from '@townhall/contracts';
import { UsageError } from './failure.js';

/**
 * The option ids for what a voter typed: an option id, its number as listed (1-based) or its
 * label (case-insensitive). Anything else is a usage error naming the options.
 */
export function optionIdsFor(poll: PollView, choices: string[]): string[] {
  return choices.map((choice) => {
    const trimmed = choice.trim();
    const byId = poll.options.find((option) => option.id === trimmed);
    if (byId) return byId.id;
    if (/^\d+$/.test(trimmed)) {
      const byNumber = poll.options[Number(trimmed) - 1];
      if (byNumber) return byNumber.id;
    }
    const byLabel = poll.options.filter((option) => option.label.toLowerCase() === trimmed.toLowerCase());
    if (byLabel.length === 1) return byLabel[0]!.id;
    const listed = poll.options.map((option, index) => `${index + 1}. ${option.label}`).join(', ');
    throw new UsageError(`"${choice}" is not an option of this poll: ${listed}`);
  });
}
