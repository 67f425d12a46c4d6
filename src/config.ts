import { adapterSettings } from './adapterSettings.js';
import type { Settings, VariableInfo } from './configuration/variable.js';
import { conversationSettings } from './conversations/conversationSettings.js';
import { httpSettings } from './http/httpSettings.js';
import { knowledgeSettings } from './knowledge/knowledgeSettings.js';
import { modelSettings } from './models/modelSettings.js';
import { toolSettings } from './tools/toolSettings.js';
import { userSettings } from './users/userSettings.js';
import { taskSettings } from './workers/taskSettings.js';

export { ConfigError, type Env } from './configuration/variable.js';
export { isEmbedded } from './adapterSettings.js';

/**
 * Every setting comes from the environment, declared where it is used: the adapters and the HTTP
 * server, the models, and each module (tasks, knowledge, conversations and chat, tools, users). Each
 * declaration names its variables with their defaults and meanings (the README's table) and a zod
 * schema per variable; a wrong value stops start-up with a message naming the variable.
 */
const SETTINGS = [
  adapterSettings,
  httpSettings,
  taskSettings,
  modelSettings,
  knowledgeSettings,
  conversationSettings,
  toolSettings,
  userSettings,
] as const;

type Part<S> = S extends Settings<infer T> ? T : never;
type Merged<Parts extends readonly unknown[]> = Parts extends readonly [infer Head, ...infer Rest]
  ? Part<Head> & Merged<Rest>
  : unknown;

/** The whole configuration: every declaration's part, side by side. */
export type Config = Merged<typeof SETTINGS>;

/** Every variable the code reads, for the README's table (which a test keeps in step). */
export const CONFIG_VARIABLES: readonly VariableInfo[] = SETTINGS.flatMap((settings) => settings.variables);

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return Object.assign({}, ...SETTINGS.map((settings) => settings.load(env))) as Config;
}
