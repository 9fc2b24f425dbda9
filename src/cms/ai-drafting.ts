// AI drafting (`POST /ai-content/generate`): asks the site owner's provider for field values of a
// content type, checks every value against the type, and saves a draft only when asked. Off unless
// the site turns AI_CONTENT_ENABLED on; the key is opened from the sealed setting only here.
import { parseBoolean } from '../config/index.js';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import { openSetting } from '../core/settings/service.js';
import type { Database } from '../db/client.js';
import {
  AiProviderError,
  aiError,
  createAiClient,
  type AiClient,
  type AiLogger,
  type AiSettings,
} from '../adapters/ai/index.js';
import type { Config } from '../config/index.js';
import { AppError } from '../http/errors.js';
import { findStoredType } from './content-types.js';
import { createEntry, findEntry, type RelationLookup } from './entries.js';
import { checkValue, type FieldDefinition } from './fields.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import { fieldSchema } from './openapi.js';
import type { RevisionNote } from './revision-log.js';
import type { EntryRow, ContentTypeRow } from './tables.js';

/** Field types a model can fill; relations and media need ids and files it cannot know. */
const DRAFTABLE = new Set(['text', 'markdown', 'number', 'boolean', 'datetime', 'enum', 'slug', 'json']);

interface GenerateInput {
  type: string;
  prompt: string;
  fields?: string[] | undefined;
  entry?: string | undefined;
  save_as_draft?: boolean | undefined;
}

interface Draft {
  type: ContentTypeRow;
  data: Record<string, unknown>;
  entry?: EntryRow;
}

/** The site's provider settings, or 403/409 saying what is missing; provider errors are logged to `logger`. */
export function aiSettingsOf(
  settings: InstanceSettings,
  config: Pick<Config, 'secretKey' | 'aiAllowPrivate'>,
  logger: AiLogger,
): AiSettings {
  if (!(parseBoolean(settings.values.AI_CONTENT_ENABLED ?? '') ?? false)) {
    throw new AppError(
      'ai_disabled',
      'AI content drafting is off: set AI_CONTENT_ENABLED with AI_PROVIDER, AI_MODEL and AI_API_KEY in the instance settings.',
    );
  }
  const missing = (['AI_PROVIDER', 'AI_MODEL', 'AI_API_KEY'] as const).filter((name) => !settings.values[name]);
  if (missing.length > 0)
    throw new AppError('ai_not_configured', `Set ${missing.join(', ')} in the instance settings.`, { missing });
  return {
    provider: settings.values.AI_PROVIDER === 'anthropic' ? 'anthropic' : 'openai',
    baseUrl: settings.values.AI_BASE_URL,
    model: settings.values.AI_MODEL!,
    apiKey: openSetting(settings.values, 'AI_API_KEY', config.secretKey)!,
    allowPrivate: config.aiAllowPrivate,
    logger,
  };
}

function fieldsToFill(type: ContentTypeRow, names: string[] | undefined): FieldDefinition[] {
  if (!names) return type.fields.filter((f) => DRAFTABLE.has(f.type));
  const errors = names
    .filter((name) => !type.fields.some((f) => f.name === name))
    .map((name) => ({ field: name, code: 'unknown_field', message: `type "${type.slug}" has no field "${name}"` }));
  if (errors.length > 0) throw new AppError('unknown_field', errors.map((e) => e.message).join('; '), { errors });
  const fields = type.fields.filter((f) => names.includes(f.name));
  const undraftable = fields.filter((f) => !DRAFTABLE.has(f.type));
  if (undraftable.length > 0)
    throw new AppError(
      'ai_unsupported_type',
      `Fields of type relation or media cannot be drafted: ${undraftable.map((f) => f.name).join(', ')}.`,
    );
  return fields;
}

function systemPrompt(type: ContentTypeRow, fields: FieldDefinition[]): string {
  const schema = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => f.required).map((f) => f.name),
  };
  return [
    `You draft content for a website's "${type.name}" entries.`,
    'Answer with exactly one JSON object and nothing else: no prose, no code fences.',
    'Markdown fields hold Markdown; datetime fields RFC 3339 date-times; enum fields one of their values.',
    `The object must validate against this JSON Schema:\n${JSON.stringify(schema)}`,
  ].join('\n');
}

/** The model's answer as an object, without the code fences some models add anyway. */
function parseAnswer(text: string, apiKey: string): Record<string, unknown> {
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch {
    throw aiError('ai_invalid_output', 'The model did not answer a JSON object.', apiKey);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw aiError('ai_invalid_output', 'The model did not answer a JSON object.', apiKey);
  return value as Record<string, unknown>;
}

/** Keeps the requested fields the model filled, each checked against its field. */
function checkedValues(
  fields: FieldDefinition[],
  answer: Record<string, unknown>,
  apiKey: string,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const errors: Array<{ field: string; message: string }> = [];
  for (const field of fields) {
    const value = answer[field.name];
    if (value === undefined || value === null) continue;
    const checked = checkValue(field, value);
    if (checked.ok) data[field.name] = checked.value;
    else errors.push({ field: field.name, message: checked.message });
  }
  if (errors.length > 0)
    throw aiError(
      'ai_invalid_output',
      `The model's values do not fit the type: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`,
      apiKey,
      { errors },
    );
  return data;
}

export async function generateDraft(
  db: Database,
  siteId: string,
  ai: AiSettings,
  input: GenerateInput,
  relations: RelationLookup,
  note: RevisionNote,
  clientFor: (settings: AiSettings) => AiClient = createAiClient,
): Promise<Draft> {
  if (FORUM_TYPE_SLUGS.includes(input.type))
    throw new AppError(
      'ai_unsupported_type',
      `"${input.type}" is a view onto the forum; draft articles or custom types.`,
    );
  const type = await findStoredType(db, siteId, input.type);
  if (!type) throw new AppError('content_type_not_found', `No content type "${input.type}".`);
  const fields = fieldsToFill(type, input.fields);
  const context = input.entry ? await findEntry(db, type, input.entry, 'any') : undefined;
  const prompt = context
    ? `${input.prompt}\n\nThe entry as it is now (JSON):\n${JSON.stringify(context.data)}`
    : input.prompt;
  try {
    const result = await clientFor(ai).complete({ system: systemPrompt(type, fields), prompt, json: true });
    const data = checkedValues(fields, parseAnswer(result.text, ai.apiKey), ai.apiKey);
    if (!input.save_as_draft) return { type, data };
    return { type, data, entry: await createEntry(db, type, { status: 'draft', data }, relations, note) };
  } catch (error) {
    if (error instanceof AiProviderError) throw new AppError(error.code, error.message, error.extensions);
    throw error;
  }
}
