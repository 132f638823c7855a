import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The programs the pages load, each written in TypeScript under browser/ and bundled into one
 * script by the build (tools/browser-programs.mjs, from `townhall.browserPrograms` in this
 * package's package.json) into the package's dist/browser/.
 */
export type BrowserProgram = 'watch' | 'docs';

/** A program's bundled text, read from dist/browser/ (two levels up from src/site and dist/site alike). */
export function browserProgram(name: BrowserProgram): string {
  const file = new URL(`../../dist/browser/${name}.js`, import.meta.url);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `${fileURLToPath(file)} cannot be read: the browser programs are bundled by the build (npm run build)`,
      { cause: error },
    );
  }
}
