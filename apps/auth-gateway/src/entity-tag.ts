import { createHash } from 'node:crypto';

/** A strong entity tag (RFC 9110) for a reply body: its SHA-256, base64url, shortened, quoted. */
export function entityTagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: a list of (possibly weak) entity tags, or `*`; true if one names `etag`. */
export function matchesEntityTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
