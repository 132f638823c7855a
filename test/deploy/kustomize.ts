// Renders k8s/ overlays with the kustomize built into kubectl, offline.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject } from './kubernetes-schema.js';

/** The kubectl that test/deploy/install-kubectl.sh installs (.ci/run runs it). */
export const PINNED_KUBECTL = 'node_modules/.cache/townhall-kubectl/v1.35.2/kubectl';

/**
 * KUBECTL if set, else the pinned one, else a kubectl on PATH whose kustomize is v5 or newer
 * (the kustomization files use v5 syntax such as `labels` and `patches` with targets).
 */
export function findKubectl(root: string): string {
  const candidates = [process.env['KUBECTL'], join(root, PINNED_KUBECTL), 'kubectl'].filter(
    (candidate): candidate is string => Boolean(candidate),
  );
  for (const candidate of candidates) {
    if (candidate.includes('/') && !existsSync(candidate)) continue;
    try {
      const version = execFileSync(candidate, ['version', '--client'], { encoding: 'utf8' });
      const kustomize = /Kustomize Version: v(\d+)\./.exec(version);
      if (kustomize && Number(kustomize[1]) >= 5) return candidate;
    } catch {
      // not there, or not runnable
    }
  }
  throw new Error(
    `no kubectl with kustomize v5: run \`bash test/deploy/install-kubectl.sh\` (or set KUBECTL)`,
  );
}

/** `kubectl kustomize <dir>`, parsed: every rendered object. */
export function render(kubectl: string, root: string, dir: string): KubernetesObject[] {
  const output = execFileSync(kubectl, ['kustomize', join(root, dir)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(output)
    .map((document) => {
      if (document.errors.length > 0) throw document.errors[0];
      return document.toJS() as KubernetesObject | null;
    })
    .filter((object): object is KubernetesObject => object !== null);
}
