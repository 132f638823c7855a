import {
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { TOWNHALL_STREAM } from '@townhall/contracts';

// The client's add() only creates (an existing durable with another config is an error), so an
// existing durable is updated instead. Two replicas creating at once: the loser updates.
export async function upsertDurable(
  jsm: JetStreamManager,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const exists = await durableExists(jsm, config.durable_name);
    if (exists) {
      const { ack_wait, filter_subject, filter_subjects } = config;
      await jsm.consumers.update(TOWNHALL_STREAM, config.durable_name, {
        ack_wait,
        filter_subject,
        filter_subjects,
      });
      return;
    }
    try {
      await jsm.consumers.add(TOWNHALL_STREAM, config);
      return;
    } catch (error) {
      if (attempt > 0 || !(error instanceof JetStreamApiError)) throw error;
    }
  }
}

async function durableExists(jsm: JetStreamManager, durable: string): Promise<boolean> {
  try {
    await jsm.consumers.info(TOWNHALL_STREAM, durable);
    return true;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return false;
    throw error;
  }
}
