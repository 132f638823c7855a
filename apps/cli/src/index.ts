export { createProgram, runCli } from './cli.js';
export { runDemo, DemoStepError, type DemoOptions, type DemoResult } from './demo.js';
export type { CliIo } from './io.js';
