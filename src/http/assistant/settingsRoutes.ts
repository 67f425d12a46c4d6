import type { Config } from '../../config.js';
import { defineRoute, type Route } from '../route.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { principalOf, requireAdmin } from './auth.js';
import { envelope, envelopeSchema } from './envelope.js';

export interface SettingsRouteDeps {
  config: Config;
  version: string;
}

const MASK = '********';
/** Settings whose values are credentials: shown as set or not, never as they are. */
const SECRET_NAME = /(key|keys|token|secret|password)$/i;

const snake = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A URL with its user name and password masked (database URLs carry them). */
function maskUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (!url.username && !url.password) return value;
    url.username = url.username ? MASK : '';
    url.password = url.password ? MASK : '';
    return url.toString();
  } catch {
    return value;
  }
}

/** The configuration with snake_case names and every credential masked. */
export function maskedSettings(value: unknown, name = ''): unknown {
  if (SECRET_NAME.test(name)) {
    if (Array.isArray(value)) return value.map(() => MASK);
    return value === null || value === '' ? value : MASK;
  }
  if (typeof value === 'string') return maskUrl(value);
  if (Array.isArray(value)) return value.map((item) => maskedSettings(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [snake(key), maskedSettings(item, key)]),
    );
  }
  return value;
}

/** What a client may know of the configuration: who it is, limits, which models, how to log in. */
function clientConfig(deps: SettingsRouteDeps): Record<string, unknown> {
  const { config } = deps;
  return {
    version: deps.version,
    models: {
      llm: config.llmModel ?? 'local-extractive',
      vision: config.visionModel !== null,
      embedding: config.embeddingModel ?? 'local-hashed-ngrams-384',
      reranker: config.reranker,
    },
    limits: {
      max_json_bytes: config.maxJsonBytes,
      max_upload_bytes: config.maxUploadBytes,
      upload_max_files: config.uploadMaxFiles,
    },
    auth: { session: true, api_key: true, jwt: config.jwt !== null },
  };
}

const anyObject = { type: 'object', additionalProperties: true } as const;

/**
 * `get_config` (any user) and `get_settings` (administrators). This build answers both from the
 * configuration; the settings aggregate that onboarding and an admin CLI change comes later
 * (issue 11, item 12).
 */
export function settingsRoutes(deps: SettingsRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_config',
      operationId: 'assistantGetConfig',
      summary: 'A client-safe subset of the configuration, and who is asking',
      tags: ['Assistant: settings'],
      responses: {
        200: {
          description: 'The configuration a client may know',
          schema: envelopeSchema({
            type: 'object',
            required: ['version', 'user', 'models', 'limits', 'auth'],
            properties: {
              version: { type: 'string' },
              user: {
                type: 'object',
                required: ['name', 'admin', 'auth_method'],
                properties: {
                  name: { type: 'string' },
                  admin: { type: 'boolean' },
                  auth_method: { enum: ['session', 'api_key', 'jwt'] },
                },
              },
              models: anyObject,
              limits: anyObject,
              auth: anyObject,
            },
          }),
        },
      },
      async handle({ koa }) {
        const principal = principalOf(koa);
        return {
          body: envelope({
            ...clientConfig(deps),
            user: { name: principal.name, admin: principal.admin, auth_method: principal.via },
          }),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_settings',
      operationId: 'assistantGetSettings',
      summary: 'The full settings, credentials masked (administrators only)',
      tags: ['Assistant: settings'],
      responses: {
        200: {
          description: 'Every setting, with credentials masked',
          schema: envelopeSchema({
            type: 'object',
            required: ['settings', 'source'],
            properties: { settings: anyObject, source: { const: 'configuration' } },
          }),
        },
        403: { description: 'The caller is not an administrator', schema: assistantErrorSchema },
      },
      async handle({ koa }) {
        requireAdmin(principalOf(koa), 'read the full settings');
        return { body: envelope({ settings: maskedSettings(deps.config), source: 'configuration' }) };
      },
    }),
  ];
}
