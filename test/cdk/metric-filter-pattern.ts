/**
 * CloudWatch Logs' JSON filter patterns, the subset the stack's metric filters use: `{ $.a.b = "x" && $.c != "y" }`,
 * string values with an optional trailing `*` (prefix match), conditions joined by `&&`
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html). Anything else throws, so a
 * filter outside the subset cannot pass a test unread.
 */
export function matchesFilterPattern(pattern: string, event: Record<string, unknown>): boolean {
  const body = /^\{\s*(.+?)\s*\}$/.exec(pattern.trim())?.[1];
  if (body === undefined) throw new Error(`not a JSON filter pattern: ${pattern}`);
  return body.split("&&").every((condition) => {
    const parts = /^\s*\$\.([\w.]+)\s*(=|!=)\s*"([^"]*)"\s*$/.exec(condition);
    if (parts === null) throw new Error(`condition outside the tested subset: ${condition}`);
    const [, path, operator, expected] = parts as unknown as [string, string, string, string];
    const value = path.split(".").reduce<unknown>((node, key) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), event);
    const equal =
      typeof value === "string" && (expected.endsWith("*") ? value.startsWith(expected.slice(0, -1)) : value === expected);
    return operator === "=" ? equal : !equal;
  });
}
