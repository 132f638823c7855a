// Offline validation of rendered Kubernetes objects, two ways:
// 1. kubernetes-models (tommy351): JSON Schema validators generated from the Kubernetes OpenAPI
//    document (types, enums, required fields, formats such as quantities and int-or-string).
// 2. Unknown fields, which those schemas allow (the OpenAPI document does not close objects):
//    every key must be a property of the package's TypeScript interface for that object, found
//    with the TypeScript compiler. This is what kubeconform's -strict mode adds; a misspelt
//    field (`readinesProbe`) would otherwise be dropped silently by the API server.
import { join } from 'node:path';
import ts from 'typescript';

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> } & Record<string, unknown>;
  [field: string]: unknown;
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/**
 * The package with the models of an API group: Kubernetes' own, or the CRDs the manifests use
 * (the same generator's packages for the Prometheus Operator and the Gateway API).
 */
const CRD_MODELS: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
};
function modelsModule(apiVersion: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
  return `${CRD_MODELS[group] ?? 'kubernetes-models'}/${apiVersion}`;
}

/** The kubernetes-models class for an object's apiVersion and kind, e.g. apps/v1 Deployment. */
async function modelOf(object: KubernetesObject): Promise<ModelClass> {
  const group = (await import(modelsModule(object.apiVersion))) as Record<string, unknown>;
  const model = group[object.kind];
  if (typeof model !== 'function')
    throw new Error(`kubernetes-models has no ${object.apiVersion} ${object.kind}`);
  return model as ModelClass;
}

/** Schema errors of one object (empty when it is valid). */
export async function schemaErrors(object: KubernetesObject): Promise<string[]> {
  const Model = await modelOf(object);
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/** Finds fields that no Kubernetes type declares, using kubernetes-models' type declarations. */
export class UnknownFieldChecker {
  private constructor(
    private readonly checker: ts.TypeChecker,
    private readonly types: Map<string, ts.Type>,
  ) {}

  /** Loads the declarations of the given kinds (one TypeScript program for all of them). */
  static create(root: string, objects: KubernetesObject[]): UnknownFieldChecker {
    const kinds = [...new Map(objects.map((o) => [`${o.apiVersion}/${o.kind}`, o])).values()];
    const file = join(root, 'test/deploy/__kubernetes-types__.ts');
    const source = kinds
      .map(({ apiVersion, kind }, index) => {
        const module = `${modelsModule(apiVersion)}/${kind}`;
        return `import type { I${kind} as T${index} } from '${module}';\nexport declare const v${index}: T${index};`;
      })
      .join('\n');
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (name, language, ...rest) =>
      name === file
        ? ts.createSourceFile(name, source, language)
        : getSourceFile.call(host, name, language, ...rest);
    host.fileExists = (name) => name === file || fileExists.call(host, name);
    host.readFile = (name) => (name === file ? source : readFile.call(host, name));
    const program = ts.createProgram([file], options, host);
    const checker = program.getTypeChecker();
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) throw new Error('no source file');
    const types = new Map<string, ts.Type>();
    for (const statement of sourceFile.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const declaration = statement.declarationList.declarations[0]!;
      const index = Number(declaration.name.getText(sourceFile).slice(1));
      const type = checker.getTypeAtLocation(declaration.name);
      if (checker.getPropertiesOfType(type).length === 0)
        throw new Error(`no type found for ${kinds[index]!.apiVersion} ${kinds[index]!.kind}`);
      types.set(`${kinds[index]!.apiVersion}/${kinds[index]!.kind}`, type);
    }
    return new UnknownFieldChecker(checker, types);
  }

  /** Paths of the fields of `object` that its type does not declare. */
  unknownFields(object: KubernetesObject): string[] {
    const type = this.types.get(`${object.apiVersion}/${object.kind}`);
    if (!type) throw new Error(`not loaded: ${object.apiVersion} ${object.kind}`);
    const found: string[] = [];
    this.walk(object, type, '', found);
    return found;
  }

  private walk(value: unknown, declared: ts.Type, path: string, found: string[]): void {
    if (value === null || typeof value !== 'object') return;
    let type = this.checker.getNonNullableType(declared);
    if (type.isUnion()) {
      const objects = type.types.filter((member) => member.flags & ts.TypeFlags.Object);
      if (objects.length !== 1) return; // e.g. int-or-string: nothing to walk
      type = objects[0]!;
    }
    if (Array.isArray(value)) {
      const element = this.checker.getIndexTypeOfType(type, ts.IndexKind.Number);
      if (element) value.forEach((item, index) => this.walk(item, element, `${path}[${index}]`, found));
      return;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    const valuesType = this.checker.getIndexTypeOfType(type, ts.IndexKind.String);
    if (valuesType) {
      // A map (labels, annotations, resource quantities): any key, values of one type.
      for (const [key, item] of entries) this.walk(item, valuesType, `${path}.${key}`, found);
      return;
    }
    if (this.checker.getPropertiesOfType(type).length === 0) return; // an open object
    for (const [key, item] of entries) {
      const property = type.getProperty(key);
      if (!property) {
        found.push(`${path}.${key}`);
        continue;
      }
      this.walk(item, this.checker.getTypeOfSymbol(property), `${path}.${key}`, found);
    }
  }
}
