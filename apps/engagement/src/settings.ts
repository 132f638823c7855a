/** The engagement service's settings (SETTINGS), read from its configuration once. */
export interface EngagementSettings {
  /** QUESTIONS_PER_MINUTE: how many questions one agent may submit to one event in a minute. */
  questionsPerMinute: number;
}
