import type { ESLint, Rule } from 'eslint';

export declare const ALLOWED: Record<string, string[]>;
export declare function isTestFile(pathInPackage: string): boolean;
export declare function packageOf(specifier: string): string;
export declare const packageBoundaries: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
