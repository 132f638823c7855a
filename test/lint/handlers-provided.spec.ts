// A class with @OnDomainEvent or @Periodic methods runs only if its service's module provides it.
// The start refuses a class that is loaded and not provided (libs/platform/src/discovery), but a
// class whose file nothing imports is never loaded: the build leaves out an import that is not
// used. So this reads the sources: every such class of a service is in its module's providers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '@townhall/testing';

const HANDLER_DECORATORS = new Set(['OnDomainEvent', 'Periodic']);

/** The classes of `source` with a method marked @OnDomainEvent or @Periodic. */
function handlerClassesOf(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name && node.members.some(isHandlerMethod))
      found.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return found;
}

function isHandlerMethod(member: ts.ClassElement): boolean {
  if (!ts.isMethodDeclaration(member)) return false;
  return (ts.getDecorators(member) ?? []).some((decorator) => {
    const call = decorator.expression;
    return ts.isCallExpression(call) && HANDLER_DECORATORS.has(call.expression.getText().split('<')[0]!);
  });
}

/** Where a module lists what it provides: Nest's `providers`, or domainModule's layout (libs/platform). */
const PROVIDER_LISTS = new Set(['providers', 'useCases', 'parts', 'provide']);

/**
 * The names in every provider list of `source` (`providers: [...]`, and the `useCases`, `parts`
 * and `provide` of domainModule's layout): classes, and `useClass` of provider objects.
 */
function providersOf(file: string, source: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAssignment(node) || ts.isVariableDeclaration(node)) &&
      PROVIDER_LISTS.has(node.name.getText()) &&
      node.initializer !== undefined &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      for (const element of node.initializer.elements) {
        if (ts.isIdentifier(element)) names.add(element.text);
        if (ts.isObjectLiteralExpression(element))
          for (const property of element.properties)
            if (ts.isPropertyAssignment(property) && property.name.getText() === 'useClass')
              names.add(property.initializer.getText());
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true));
  return names;
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => join(folder, file));
}

/** Each service's handler classes that its module does not provide, as `<app>: <Class> (<file>)`. */
function unprovidedHandlers(): string[] {
  const missing: string[] = [];
  for (const app of readdirSync(join(REPO_ROOT, 'apps'))) {
    const src = join(REPO_ROOT, 'apps', app, 'src');
    const files = sourcesUnder(src);
    const modules = files.filter((file) => file.endsWith('.module.ts'));
    const provided = new Set(modules.flatMap((file) => [...providersOf(file, readFileSync(file, 'utf8'))]));
    for (const file of files)
      for (const name of handlerClassesOf(file, readFileSync(file, 'utf8')))
        if (!provided.has(name)) missing.push(`${app}: ${name} (${file.slice(REPO_ROOT.length)})`);
  }
  return missing;
}

describe('handlers and their modules', () => {
  it('finds a handler class that its module leaves out', () => {
    const consumer = `class Projection {
      @OnDomainEvent('townhall.ticket.>', { durable: 'x-tickets' }) async handle() {}
    }
    class Sweep { @Periodic<Config>({ every: 'X_MS' }) async sweep() { return 0; } }
    class Plain { async other() {} }`;
    expect(handlerClassesOf('any.ts', consumer)).toEqual(['Projection', 'Sweep']);
    const module = `({ providers: [{ provide: A, useValue: 1 }, Projection, { provide: B, useClass: Sweep }] })`;
    expect([...providersOf('any.module.ts', module)]).toEqual(['Projection', 'Sweep']);
  });

  it("provides every service's @OnDomainEvent and @Periodic classes in its module", () => {
    expect(unprovidedHandlers()).toEqual([]);
  });
});
