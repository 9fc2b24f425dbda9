// The allowlist of instance settings (DESIGN section 6): each name with its type, whether it is a
// secret, and a one-line doc. Values travel as strings, as in an env file.
import { parseBoolean } from '../../config/index.js';
import { isEmail } from '../../lib/email.js';

type SettingType =
  'boolean' | 'text' | 'url' | 'origins' | 'email' | 'sender' | 'port' | 'host' | 'enum' | 'bytes' | 'count';

export interface SettingDefinition {
  type: SettingType;
  /** What forms call it; the name stays what env files, the API and the CLI use. */
  label: string;
  doc: string;
  secret?: boolean;
  /**
   * On a platform, only the site's owner (or a platform administrator) changes it: it makes the
   * server connect somewhere or holds a credential of the owner's (decision 0116).
   */
  owner?: boolean;
  values?: readonly string[];
}

export const SETTINGS = {
  FORUM_API_PUBLIC_READ: {
    label: 'Anonymous API reads',
    type: 'boolean',
    doc: 'Anonymous Forum API reads (needs API_CORS_ORIGINS too).',
  },
  API_CORS_ORIGINS: {
    label: 'Browser origins allowed to call the APIs',
    type: 'origins',
    doc: 'Comma-separated origins allowed to call the site APIs from browsers, or *.',
  },
  FORUM_TITLE: { label: 'Community title', type: 'text', doc: 'Title of the community.' },
  REGISTRATION_OPEN: { label: 'Open sign-up', type: 'boolean', doc: 'Whether visitors may sign up as members.' },
  FORUM_EMAIL_CONFIRMATION: {
    label: 'Confirm e-mail before posting',
    type: 'boolean',
    doc: 'Members who sign up confirm their e-mail address before posting, when the server sends mail (default true).',
  },
  FORUM_HOLD_FIRST_POSTS: {
    label: 'Hold first posts for approval',
    type: 'boolean',
    doc: "Hold a member's first post for a moderator's approval (default false).",
  },
  FORUM_TRUST_MIN_POSTS: {
    label: 'Posts before a member is trusted',
    type: 'count',
    doc: 'Posts a new member writes before its links show and it may upload (default 2).',
  },
  FORUM_TRUST_MIN_TOPICS_READ: {
    label: 'Topics read before a member is trusted',
    type: 'count',
    doc: 'Topics a new member reads before its links show and it may upload (default 5).',
  },
  FORUM_NEW_MEMBER_POSTS_PER_HOUR: {
    label: 'Posts per hour by a new member',
    type: 'count',
    doc: 'Posts, replies, edits and flags a new member may make per hour (default 10).',
  },
  HELPDESK_SUPPORT_ADDRESS: {
    label: 'Support e-mail address',
    type: 'email',
    doc: 'Support e-mail address of the help desk.',
  },
  HELPDESK_SENDER_NAME: {
    label: 'Help desk sender name',
    type: 'text',
    doc: "Name the help desk's mail comes from (default: the community's title).",
  },
  HELPDESK_AUTO_REPLY: {
    label: 'Acknowledge new tickets by mail',
    type: 'boolean',
    doc: "Mail the requester the ticket number when their mail or a member's contact form opens a ticket.",
  },
  HELPDESK_INBOUND_SECRET: {
    label: 'Inbound e-mail secret',
    type: 'text',
    secret: true,
    owner: true,
    doc: 'Secret of POST /inbound-email: the Bearer token of raw MIME and the basic-auth password of Postmark.',
  },
  HELPDESK_MAILGUN_SIGNING_KEY: {
    label: 'Mailgun signing key',
    type: 'text',
    secret: true,
    owner: true,
    doc: 'Mailgun HTTP webhook signing key, verifying Mailgun route deliveries.',
  },
  HELPDESK_SENDGRID_VERIFICATION_KEY: {
    label: 'SendGrid verification key',
    type: 'text',
    secret: true,
    owner: true,
    doc: 'Public key (base64) of the SendGrid Inbound Parse security policy, verifying its signatures.',
  },
  HELPDESK_ATTACHMENT_MAX_BYTES: {
    label: 'Largest inbound attachment (bytes)',
    type: 'bytes',
    doc: 'Largest attachment an inbound e-mail may carry, in bytes (default 26214400, 25 MiB).',
  },
  AI_PROVIDER: {
    label: 'AI provider',
    type: 'enum',
    owner: true,
    values: ['openai', 'anthropic'],
    doc: 'AI provider API flavour.',
  },
  AI_BASE_URL: { label: 'AI provider address', type: 'url', owner: true, doc: 'Base URL of the AI provider API.' },
  AI_MODEL: { label: 'AI model', type: 'text', doc: 'AI model name.' },
  AI_API_KEY: {
    label: 'AI provider API key',
    type: 'text',
    secret: true,
    owner: true,
    doc: "The site owner's AI provider API key.",
  },
  AI_CONTENT_ENABLED: { label: 'AI content drafting', type: 'boolean', doc: 'Enable AI content drafting.' },
  MAIL_SERVER: { label: 'SMTP server', type: 'host', owner: true, doc: 'SMTP host for mail of this instance.' },
  MAIL_PORT: { label: 'SMTP port', type: 'port', owner: true, doc: 'SMTP port.' },
  MAIL_USE_TLS: { label: 'SMTP over TLS', type: 'boolean', owner: true, doc: 'Implicit TLS for SMTP.' },
  MAIL_USERNAME: { label: 'SMTP user name', type: 'text', owner: true, doc: 'SMTP user name.' },
  MAIL_PASSWORD: { label: 'SMTP password', type: 'text', secret: true, owner: true, doc: 'SMTP password.' },
  MAIL_DEFAULT_SENDER: {
    label: 'Sender address',
    type: 'sender',
    owner: true,
    doc: 'From address, `name@example.com` or `Name <name@example.com>`.',
  },
} as const satisfies Record<string, SettingDefinition>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS).sort() as SettingName[];

// How settings forms (the forum's admin page, the console) group the allowlist, in their order.
const GROUPS: ReadonlyArray<readonly [string, readonly SettingName[]]> = [
  ['Community', ['FORUM_TITLE', 'REGISTRATION_OPEN']],
  [
    'Trust and spam',
    [
      'FORUM_EMAIL_CONFIRMATION',
      'FORUM_HOLD_FIRST_POSTS',
      'FORUM_TRUST_MIN_POSTS',
      'FORUM_TRUST_MIN_TOPICS_READ',
      'FORUM_NEW_MEMBER_POSTS_PER_HOUR',
    ],
  ],
  ['Forum API', ['FORUM_API_PUBLIC_READ', 'API_CORS_ORIGINS']],
  ['Mail', ['MAIL_DEFAULT_SENDER', 'MAIL_SERVER', 'MAIL_PORT', 'MAIL_USE_TLS', 'MAIL_USERNAME', 'MAIL_PASSWORD']],
  [
    'Help desk',
    [
      'HELPDESK_SUPPORT_ADDRESS',
      'HELPDESK_SENDER_NAME',
      'HELPDESK_AUTO_REPLY',
      'HELPDESK_INBOUND_SECRET',
      'HELPDESK_MAILGUN_SIGNING_KEY',
      'HELPDESK_SENDGRID_VERIFICATION_KEY',
      'HELPDESK_ATTACHMENT_MAX_BYTES',
    ],
  ],
  ['AI', ['AI_PROVIDER', 'AI_BASE_URL', 'AI_MODEL', 'AI_API_KEY', 'AI_CONTENT_ENABLED']],
];

/** Every allowlisted setting in a group; any the groups above miss are listed under "Other". */
export function settingGroups(): Array<readonly [string, readonly SettingName[]]> {
  const grouped = new Set(GROUPS.flatMap(([, names]) => names));
  const rest = SETTING_NAMES.filter((name) => !grouped.has(name));
  return rest.length > 0 ? [...GROUPS, ['Other', rest]] : [...GROUPS];
}

/** What secrets read back as; a PUT that sends it back keeps the stored value. */
export const SECRET_MASK = '********';

export const MAX_SETTING_LENGTH = 2000;

const HOST =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[[0-9a-fA-F:.]+\]$/;

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}

/** Whether only the site's owner changes the setting on a platform (decision 0116). */
export function isOwnerSetting(name: SettingName): boolean {
  const definition: SettingDefinition = SETTINGS[name];
  return definition.owner === true;
}

/** Parses API_CORS_ORIGINS into exact origins (or ['*']); undefined when any entry is not an origin. */
function parseOrigins(value: string): string[] | undefined {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && parts[0] === '*') return ['*'];
  const origins: string[] = [];
  for (const part of parts) {
    try {
      const url = new URL(part);
      // An origin has nothing after the authority; `new URL` would quietly accept a path.
      if (
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        url.origin !== part.replace(/\/$/, '').toLowerCase()
      )
        return undefined;
      origins.push(url.origin);
    } catch {
      return undefined;
    }
  }
  return origins;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Why a value does not fit its setting's type, or undefined when it fits. */
export function settingProblem(name: SettingName, value: string): string | undefined {
  const definition: SettingDefinition = SETTINGS[name];
  if (value.length > MAX_SETTING_LENGTH) return `must be at most ${MAX_SETTING_LENGTH} characters`;
  switch (definition.type) {
    case 'boolean':
      return parseBoolean(value) === undefined ? 'must be a boolean: true, false, True, False, 1 or 0' : undefined;
    case 'origins':
      return parseOrigins(value)
        ? undefined
        : 'must be * or a comma-separated list of origins such as https://example.com';
    case 'url':
      return isHttpUrl(value) ? undefined : 'must be an http or https URL';
    case 'email':
      return isEmail(value) ? undefined : 'must be an e-mail address';
    case 'sender': {
      const named = /^[^<>]*<([^<>]+)>$/.exec(value);
      return isEmail(named ? named[1]!.trim() : value)
        ? undefined
        : 'must be `name@example.com` or `Name <name@example.com>`';
    }
    case 'port': {
      const port = Number(value);
      return /^\d+$/.test(value) && port >= 1 && port <= 65535 ? undefined : 'must be a port number from 1 to 65535';
    }
    case 'bytes':
      return /^[1-9][0-9]{0,11}$/.test(value) ? undefined : 'must be a whole number of bytes, at least 1';
    case 'count':
      return /^(0|[1-9][0-9]{0,5})$/.test(value) ? undefined : 'must be a whole number from 0 to 999999';
    case 'host':
      return HOST.test(value) ? undefined : 'must be a host name';
    case 'enum':
      return definition.values!.includes(value) ? undefined : `must be one of ${definition.values!.join(', ')}`;
    case 'text':
      // Env-file values are single lines.
      return /[\r\n\0]/.test(value) ? 'must be a single line' : undefined;
  }
}

/** The parsed view of applied settings that the running instance acts on. */
export interface InstanceSettings {
  values: Readonly<Record<string, string>>;
  forumApiPublicRead: boolean;
  /** Exact origins, `['*']`, or empty when CORS is off. */
  corsOrigins: readonly string[];
}

export function parseInstanceSettings(values: Record<string, string>): InstanceSettings {
  return Object.freeze({
    values: Object.freeze({ ...values }),
    forumApiPublicRead: parseBoolean(values.FORUM_API_PUBLIC_READ ?? '') ?? false,
    corsOrigins: Object.freeze(parseOrigins(values.API_CORS_ORIGINS ?? '') ?? []),
  });
}
