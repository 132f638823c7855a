// The engagement service's contracts, one file per feature under ./engagement/: each holds its
// request schemas and reply types, its NATS contracts and its route group.
export * from './engagement/stage.js';
export * from './engagement/questions.js';
export * from './engagement/polls.js';
export * from './engagement/blocks.js';
export * from './engagement/recordings.js';
export * from './engagement/topics.js';
export * from './engagement/attendance.js';
