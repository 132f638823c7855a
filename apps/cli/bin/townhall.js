#!/usr/bin/env node
// The `townhall` command as npm links it. A fixed file rather than dist/main.js itself: every
// build rewrites dist/ and so drops the executable bit npm set on the bin at install time.
try {
  await import('../dist/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/main.js')) throw error;
  process.stderr.write('error cli.not_built: the townhall CLI is not built yet; run: npm run build\n');
  process.exitCode = 1;
}
