import { EventIdSchema } from '@townhall/contracts';
import { z } from 'zod';

/*
 * Path parameters for the OpenAPI document, keyed as the routes name them. The schemas are the
 * contracts' own: the gateway passes the value on as the contract field (`id` is `eventId`).
 */

export const EventPath = z.object({ id: EventIdSchema.describe('The event id') });
export const SeriesPath = z.object({ id: EventIdSchema.describe('The series id') });
export const QuestionPath = EventPath.extend({ qid: EventIdSchema.describe('The question id') });
export const PollPath = EventPath.extend({ pid: EventIdSchema.describe('The poll id') });
