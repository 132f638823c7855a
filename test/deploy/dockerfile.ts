// Reads docker/Dockerfile the way `docker build` would for one APP: the stages, and what the final
// stage gives a container (environment, working directory, user, CMD, ENTRYPOINT, HEALTHCHECK).
import { DockerfileParser, type Env, type From, type Instruction } from 'dockerfile-ast';

export interface Stage {
  name: string | null;
  /** The base, with ARG values substituted: an image reference or an earlier stage's name. */
  base: string;
  instructions: Instruction[];
}

export interface ImageConfig {
  env: Record<string, string>;
  workdir: string;
  user: string | undefined;
  entrypoint: string[];
  cmd: string[];
  /** The HEALTHCHECK command (exec form), if any. */
  healthcheck: string[] | undefined;
}

/** Substitutes $NAME and ${NAME} (and ${NAME:-default}) as the Dockerfile frontend does. */
export function substitute(text: string, variables: Record<string, string | undefined>): string {
  return text.replace(
    /\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)/g,
    (_, braced?: string, fallback?: string, bare?: string) => {
      const value = variables[(braced ?? bare)!];
      return value === undefined || value === '' ? (fallback ?? '') : value;
    },
  );
}

/** An exec-form (JSON array) instruction's argv; throws on the shell form. */
export function execForm(instruction: Instruction): string[] {
  const content = (instruction.getArgumentsContent() ?? '').replace(/^CMD\s+/, '');
  const argv: unknown = JSON.parse(content);
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) {
    throw new Error(`${instruction.getKeyword()} is not in exec form: ${content}`);
  }
  return argv as string[];
}

export class ParsedDockerfile {
  readonly stages: Stage[] = [];
  /** ARGs declared before the first FROM, with their defaults. */
  readonly globalArgs: Record<string, string | undefined> = {};

  constructor(readonly text: string) {
    const dockerfile = DockerfileParser.parse(text);
    for (const arg of dockerfile.getInitialARGs()) {
      const property = arg.getProperty();
      if (property) this.globalArgs[property.getName()] = property.getValue() ?? undefined;
    }
    for (const instruction of dockerfile.getInstructions()) {
      if (instruction.getKeyword() === 'FROM') {
        const from = instruction as From;
        const image = (from.getArgumentsContent() ?? '').split(/\s+/)[0]!;
        this.stages.push({
          name: from.getBuildStage(),
          base: substitute(image, this.globalArgs),
          instructions: [],
        });
      } else {
        this.stages.at(-1)?.instructions.push(instruction);
      }
    }
  }

  get finalStage(): Stage {
    return this.stages.at(-1)!;
  }

  /** What a container of the final stage starts with, for the given build arguments. */
  imageConfig(buildArgs: Record<string, string>): ImageConfig {
    const config: ImageConfig = {
      env: {},
      workdir: '/',
      user: undefined,
      entrypoint: [],
      cmd: [],
      healthcheck: undefined,
    };
    const args: Record<string, string | undefined> = {};
    for (const instruction of this.finalStage.instructions) {
      const variables = { ...args, ...config.env };
      switch (instruction.getKeyword()) {
        case 'ARG': {
          const [name, value] = (instruction.getArgumentsContent() ?? '').split('=', 2) as [string, string?];
          args[name] = buildArgs[name] ?? this.globalArgs[name] ?? value;
          break;
        }
        case 'ENV':
          for (const property of (instruction as Env).getProperties()) {
            config.env[property.getName()] = substitute(property.getUnescapedValue() ?? '', variables);
          }
          break;
        case 'WORKDIR':
          config.workdir = substitute(instruction.getArgumentsContent() ?? '', variables);
          break;
        case 'USER':
          config.user = substitute(instruction.getArgumentsContent() ?? '', variables);
          break;
        case 'ENTRYPOINT':
          config.entrypoint = execForm(instruction);
          config.cmd = []; // as in Docker: a new ENTRYPOINT resets an inherited CMD
          break;
        case 'CMD':
          config.cmd = execForm(instruction);
          break;
        case 'HEALTHCHECK':
          config.healthcheck = /^NONE\b/.test(instruction.getArgumentsContent() ?? '')
            ? undefined
            : execForm(instruction);
          break;
      }
    }
    return config;
  }
}
