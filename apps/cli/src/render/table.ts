// Human output: short lines and aligned tables of the product's resources (render/*-lines.ts).
// `--json` bypasses all of it.

/** A page's rows, then how to ask for the next page when there is one. */
export function pageLines<T>(
  page: { items: T[]; nextCursor: string | null },
  rows: (items: T[]) => string[],
): string[] {
  return [...rows(page.items), ...(page.nextCursor ? [`more: --cursor ${page.nextCursor}`] : [])];
}

/** Rows as aligned columns (two spaces apart); the last column is never padded. */
export function table(rows: string[][], headers?: string[]): string[] {
  const all = headers ? [headers, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all)
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  return all.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
