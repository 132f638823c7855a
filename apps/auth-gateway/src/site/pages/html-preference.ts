/**
 * Whether a client asking for `GET /` wants the page rather than JSON: `text/html` named in its
 * Accept header and liked at least as much as JSON. A browser's Accept names text/html first;
 * curl's `*\/*`, fetch's default and an SDK's `application/json` get JSON, as they did before
 * the page existed.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return { range, quality: Number.isFinite(quality) ? quality : 0 };
  });
  const html = ranges.find((entry) => entry.range === 'text/html');
  if (!html || html.quality <= 0) return false;
  const json = ranges.find((entry) => entry.range === 'application/json');
  return json === undefined || html.quality >= json.quality;
}
