// Reads the alerting rules of k8s/components/prometheus-operator with Prometheus' own PromQL
// grammar (@prometheus-io/lezer-promql, the parser of the Prometheus web UI): syntax errors, and
// the series each expression selects, so tests can hold them against what the apps serve.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';

export const PROMETHEUS_RULE_FILE = 'k8s/components/prometheus-operator/prometheus-rule.yaml';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The alerting rules of the PrometheusRule, every group's. */
export function alertRules(root: string): AlertRule[] {
  const rule = parse(readFileSync(join(root, PROMETHEUS_RULE_FILE), 'utf8')) as {
    spec: { groups: { name: string; rules: AlertRule[] }[] };
  };
  return rule.spec.groups.flatMap((group) => group.rules);
}

export interface LabelMatcher {
  label: string;
  /** =, !=, =~ or !~ */
  op: string;
  value: string;
}

export interface Selector {
  metric: string;
  matchers: LabelMatcher[];
}

export interface ParsedExpression {
  /** Where the grammar failed, as "at <offset>: <text>"; empty when the expression is valid. */
  errors: string[];
  selectors: Selector[];
  /** Labels named in by (...), without (...), on (...) and ignoring (...). */
  groupingLabels: string[];
}

export function parsePromql(expr: string): ParsedExpression {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const selectors: Selector[] = [];
  const groupingLabels: string[] = [];
  const text = (from: number, to: number) => expr.slice(from, to);
  const cursor = tree.cursor();
  do {
    const node = cursor.node;
    if (node.type.isError) errors.push(`at ${node.from}: ${JSON.stringify(text(node.from, node.from + 20))}`);
    if (node.name === 'GroupingLabels') {
      for (let label = node.getChild('LabelName'); label; label = label.nextSibling) {
        if (label.name === 'LabelName') groupingLabels.push(text(label.from, label.to));
      }
    }
    if (node.name === 'VectorSelector') {
      const identifier = node.getChild('Identifier');
      const matchers: LabelMatcher[] = [];
      for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = matcher.getChild('LabelName')!;
        const op = matcher.getChild('MatchOp')!;
        const value = matcher.getChild('StringLiteral')!;
        matchers.push({
          label: text(label.from, label.to),
          op: text(op.from, op.to),
          value: JSON.parse(text(value.from, value.to)) as string,
        });
      }
      selectors.push({ metric: identifier ? text(identifier.from, identifier.to) : '', matchers });
    }
  } while (cursor.next());
  return { errors, selectors, groupingLabels };
}
