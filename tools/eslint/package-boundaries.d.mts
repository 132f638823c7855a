import type { ESLint, Rule } from 'eslint';

export declare const ALLOWED: Record<string, string[]>;
export declare function isTestFile(pathInPackage: string): boolean;
export declare function packageOf(specifier: string): string;
export declare const packageBoundaries: Rule.RuleModule;
export interface WorkspacePackage {
  dir: string;
  name: string;
  kind: string;
  testOnly: boolean;
  manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
}
export declare function loadWorkspace(root: string): {
  root: string;
  packages: WorkspacePackage[];
  byName: Map<string, WorkspacePackage>;
};
declare const plugin: ESLint.Plugin;
export default plugin;
