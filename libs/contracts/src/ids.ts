/**
 * Resource ids are UUIDs, opaque to clients: anything else names no resource (404, not
 * 400), and is answered without asking the database.
 */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
