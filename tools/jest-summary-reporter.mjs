// Ends a jest run with one plain line, `tests: N passed, N failed`, that CI tooling reads.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    // Printed at exit so that it is the run's last line, after jest's own summary.
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
