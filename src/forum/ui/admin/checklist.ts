// The first-run checklist of a community: each step read from the state it describes (applied
// settings, the server's mail, categories, forums, staff), never from a flag that could drift.
import { count, eq } from 'drizzle-orm';
import { parseBoolean } from '../../../config/index.js';
import type { InstanceSettings } from '../../../core/settings/allowlist.js';
import type { Executor } from '../../../db/client.js';
import { countMembersByRole } from '../../members.js';
import { forumCategories, forums } from '../../tables.js';

export interface ChecklistItem {
  label: string;
  /** Where the step is done. */
  href: string;
  done: boolean;
  /** The state the tick was read from, in words. */
  state: string;
}

interface ChecklistState {
  settings: InstanceSettings;
  /** Whether this server sends mail (BLUME_MAIL_SERVER). */
  mailEnabled: boolean;
}

export async function firstRunChecklist(db: Executor, siteId: string, state: ChecklistState): Promise<ChecklistItem[]> {
  const [[categories], [forumCount], roles] = await Promise.all([
    db.select({ n: count() }).from(forumCategories).where(eq(forumCategories.siteId, siteId)),
    db.select({ n: count() }).from(forums).where(eq(forums.siteId, siteId)),
    countMembersByRole(db, siteId),
  ]);
  const values = state.settings.values;
  const title = values.FORUM_TITLE?.trim();
  const registration = parseBoolean(values.REGISTRATION_OPEN ?? '');
  const sender = values.MAIL_DEFAULT_SENDER;
  const staff = roles.moderator + roles.admin - 1;
  return [
    {
      label: 'Give the community a title',
      href: '/admin/settings#FORUM_TITLE',
      done: Boolean(title),
      state: title ? `The title is “${title}”.` : 'Pages show the instance id until you set one.',
    },
    {
      label: 'Decide who may sign up',
      href: '/admin/settings#REGISTRATION_OPEN',
      done: registration !== undefined,
      state:
        registration === undefined
          ? 'Not decided: anyone may sign up (the default).'
          : registration
            ? 'Anyone may sign up.'
            : 'Only admins add members.',
    },
    {
      label: 'Set up mail',
      href: '/admin/settings#MAIL_DEFAULT_SENDER',
      done: state.mailEnabled,
      state: state.mailEnabled
        ? `This server sends mail${sender ? ` from ${sender}` : ''}: confirmations, password resets, reply notices.`
        : 'This server sends no mail: set BLUME_MAIL_SERVER (and BLUME_MAIL_*) in its environment and restart it.',
    },
    {
      label: 'Create the first category',
      href: '/admin/structure#new-category',
      done: (categories?.n ?? 0) > 0,
      state: `${categories?.n ?? 0} categor${categories?.n === 1 ? 'y' : 'ies'}.`,
    },
    {
      label: 'Create the first forum',
      href: '/admin/structure#new-forum',
      done: (forumCount?.n ?? 0) > 0,
      state: `${forumCount?.n ?? 0} forum${forumCount?.n === 1 ? '' : 's'}.`,
    },
    {
      label: 'Invite moderators',
      href: '/admin/members#add-member',
      done: staff > 0,
      state:
        staff > 0
          ? `${roles.moderator} moderator${
              roles.moderator === 1 ? '' : 's'
            }, ${roles.admin} admin${roles.admin === 1 ? '' : 's'}.`
          : 'Nobody helps you moderate yet.',
    },
  ];
}
