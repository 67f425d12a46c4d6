import { z } from 'zod';

/** The process environment, or any map of variables like it (tests, the CLI). */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * One environment variable: its name, the default the README shows (a literal, or a parenthesised
 * description when it depends on other settings), what it means, and how its value is read — a zod
 * schema checks it, and a wrong value stops start-up with a message naming the variable.
 */
export interface VariableInfo {
  readonly name: string;
  readonly default: string;
  readonly meaning: string;
}

export interface Variable<T> extends VariableInfo {
  /**
   * The value in `env`, else `fallback`, else the documented default (which the same schema checks,
   * so the README cannot name a value the code refuses). Blank counts as unset.
   */
  read(env: Env, fallback?: T): T;
  /** Whether `env` sets it (not blank). */
  isSet(env: Env): boolean;
}

interface Declared {
  /** A literal default (checked like a given value), or a description such as `(none)`. */
  default: string | number;
  meaning: string;
}

const rawOf = (env: Env, name: string): string | undefined => env[name]?.trim() || undefined;

function variable<T>(
  name: string,
  declared: Declared,
  schema: z.ZodType<T>,
  /** The message of a refused value; `issues` are the schema's messages. */
  refusal: (raw: string, issues: string[]) => string,
  /** The value when unset, for variables whose documented default is a description: `(none)`, `(empty)`. */
  unset?: T,
): Variable<T> {
  const documented = String(declared.default);
  const parse = (raw: string): T => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      throw new ConfigError(
        refusal(
          raw,
          parsed.error.issues.map((issue) => issue.message),
        ),
      );
    }
    return parsed.data;
  };
  return {
    name,
    default: documented,
    meaning: declared.meaning,
    isSet: (env) => rawOf(env, name) !== undefined,
    read(env, fallback) {
      const raw = rawOf(env, name);
      if (raw !== undefined) return parse(raw);
      if (fallback !== undefined) return fallback;
      if (unset !== undefined) return unset;
      if (documented.startsWith('(')) throw new Error(`${name} documents no literal default: pass one`);
      return parse(documented);
    },
  };
}

export function integer(name: string, declared: Declared & { min: number; max: number }): Variable<number> {
  const { min, max } = declared;
  return variable(
    name,
    declared,
    z.coerce.number().int().min(min).max(max),
    (raw) => `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
  );
}

export function decimal(name: string, declared: Declared & { min: number; max: number }): Variable<number> {
  const { min, max } = declared;
  return variable(
    name,
    declared,
    z.coerce.number().min(min).max(max),
    (raw) => `${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
  );
}

export function oneOf<const T extends readonly [string, ...string[]]>(
  name: string,
  options: T,
  declared: Declared,
): Variable<T[number]> {
  return variable(
    name,
    declared,
    z.enum(options),
    (raw) => `${name} must be one of ${options.join(', ')}, got ${JSON.stringify(raw)}`,
  );
}

/** `true` or `false`. */
export function flag(name: string, declared: Declared): Variable<boolean> {
  return variable(
    name,
    declared,
    z.enum(['true', 'false']).transform((value) => value === 'true'),
    (raw) => `${name} must be one of true, false, got ${JSON.stringify(raw)}`,
  );
}

export function text(name: string, declared: Declared): Variable<string> {
  return variable(name, declared, z.string(), () => `${name} must be text`);
}

/** Optional text: null when unset. */
export function optionalText(name: string, meaning: string, shown = '(none)'): Variable<string | null> {
  return variable<string | null>(
    name,
    { default: shown, meaning },
    z.string(),
    () => `${name} must be text`,
    null,
  );
}

/** An optional URL: null when unset. */
export function url(name: string, meaning: string, shown = '(none)'): Variable<string | null> {
  return variable<string | null>(
    name,
    { default: shown, meaning },
    z.url(),
    (raw) => `${name} is not a valid URL: ${JSON.stringify(raw)}`,
    null,
  );
}

/**
 * A comma-separated list, blanks and repeats dropped. With `allowed`, anything else is refused; with
 * `problemOf`, any item it finds a problem with (the message names the item and the problem).
 */
export function list<T extends string = string>(
  name: string,
  declared: Declared & { allowed?: readonly T[]; problemOf?: (item: string) => string | null },
): Variable<T[]> {
  const { allowed, problemOf } = declared;
  const schema = z
    .string()
    .transform((raw) => [...new Set(raw.split(',').map((item) => item.trim()))].filter(Boolean))
    .superRefine((items, context) => {
      const unknown = allowed ? items.filter((item) => !(allowed as readonly string[]).includes(item)) : [];
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `has unknown ${unknown.join(', ')}; allowed: ${allowed!.join(', ')}`,
        });
      }
      for (const item of items) {
        const problem = problemOf?.(item);
        if (problem) context.addIssue({ code: 'custom', message: `has ${JSON.stringify(item)}: ${problem}` });
      }
    }) as unknown as z.ZodType<T[]>;
  return variable(name, declared, schema, (_raw, issues) => `${name} ${issues.join('; ')}`, []);
}

/**
 * The settings one module (or one layer, such as the adapters) reads from the environment: the
 * variables it declares, for the README and for the check that nothing undeclared is read, and how
 * it turns them into its part of the configuration (where one variable's default depends on another,
 * or two must agree, that is said here).
 */
export interface Settings<T extends object> {
  readonly variables: readonly VariableInfo[];
  load(env: Env): T;
}

export function defineSettings<T extends object>(
  variables: readonly VariableInfo[],
  load: (env: Env) => T,
): Settings<T> {
  return { variables, load };
}
