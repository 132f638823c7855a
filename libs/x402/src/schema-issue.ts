/** Both zod 3 (inside @x402/core) and zod 4 (ours) report issues in this shape. */
interface IssueList {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
}

/** The first issue, with its path, is enough for a client to see what to fix; the rest is noise. */
export function describeIssue(error: IssueList, root: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return `${root} is invalid`;
  const path = [root, ...issue.path.map((key) => String(key))].join('.');
  return `${path}: ${issue.message}`;
}
