// The help desk's settings pages (/desk/admin/...), for its admins as the API decides (requireAdmin):
// each form calls the service the API calls, and a refusal shows beside the form with what was typed.
// After a change the page is shown again (303) with what was done.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parseBoolean } from '../../config/index.js';
import { MAX_SETTING_LENGTH, parseInstanceSettings } from '../../core/settings/allowlist.js';
import {
  applyDesiredSettings,
  diffSettings,
  loadSettings,
  updateDesiredSettings,
} from '../../core/settings/service.js';
import { findMember, findMemberByUsername } from '../../forum/members.js';
import { checkForm } from '../../forum/ui/context.js';
import { FORM_BODY_LIMIT, sendPage } from '../../forum/ui/forms.js';
import { AppError } from '../../http/errors.js';
import { field, seeOther } from '../../http/forms.js';
import { findAgent, listAgents, makeAgent, updateAgent } from '../agents.js';
import { createCannedReply, deleteCannedReply, listCannedReplies, updateCannedReply } from '../canned-replies.js';
import { createCategory, listCategories, openTicketsPerCategory, updateCategory } from '../categories.js';
import { actorOf, requireAdmin } from '../policy.js';
import { listSlaPolicies, setSlaPolicy } from '../sla.js';
import { TICKET_PRIORITIES } from '../tables.js';
import { deleteTag, listTags, renameTag } from '../tags.js';
import {
  agentsView,
  cannedRepliesView,
  categoriesView,
  mailView,
  slaView,
  tagsView,
  type AdminPage,
  type Refused,
} from './admin-views.js';
import { INBOX_PAGE, refusal } from './inbox-routes.js';
import { INBOX_HEAD } from './inbox-views.js';

/** What the page says after a change (`?done=`). */
const DONE: Record<string, string> = {
  added: 'Added.',
  saved: 'Saved.',
  renamed: 'Renamed.',
  archived: 'Archived: no ticket goes into it any more.',
  restored: 'Brought back: tickets may go into it again.',
  deleted: 'Deleted.',
};

/** The instance settings the Mail page changes. */
const MAIL_SETTINGS = ['HELPDESK_SUPPORT_ADDRESS', 'HELPDESK_SENDER_NAME', 'HELPDESK_AUTO_REPLY'] as const;

/** The longest SLA target, a year in minutes, as the API takes it. */
const MAX_MINUTES = 525_600;

async function adminsOnly(request: FastifyRequest): Promise<void> {
  requireAdmin(request.helpdesk.caller);
}

const ADMIN_PAGE = [...INBOX_PAGE, adminsOnly];
/** The CSRF check comes after the role check, as in the inbox. */
const ADMIN_FORM = [...INBOX_PAGE, adminsOnly, checkForm];

const IdParams = { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }) };
type WithId = { Params: { id: string } };
type WithDone = { Querystring: { done?: string } };

export async function adminPages(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  function flashOf(request: FastifyRequest): { kind: 'ok'; text: string } | undefined {
    const done = DONE[(request.query as { done?: string }).done ?? ''];
    return done ? { kind: 'ok', text: done } : undefined;
  }

  /** Sends one of the settings pages: shown anew, or refused (422) with what was typed. */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    page: AdminPage,
    refused?: Refused,
    status = 200,
  ): Promise<FastifyReply> {
    const ui = request.ui;
    const siteId = request.helpdesk.site.id;
    const flash = refused ? undefined : flashOf(request);
    let view;
    switch (page) {
      case 'categories': {
        view = categoriesView(
          ui,
          await listCategories(db, siteId),
          await openTicketsPerCategory(db, siteId),
          flash,
          refused,
        );
        break;
      }
      case 'agents': {
        const agents = await Promise.all(
          (await listAgents(db, siteId)).map(async (agent) => ({
            ...agent,
            username: (await findMember(db, siteId, agent.agent.memberId))?.username ?? agent.agent.memberId,
          })),
        );
        view = agentsView(ui, agents, await listCategories(db, siteId), flash, refused);
        break;
      }
      case 'sla':
        view = slaView(ui, await listSlaPolicies(db, siteId), flash, refused);
        break;
      case 'tags':
        view = tagsView(ui, await listTags(db, siteId), flash, refused);
        break;
      case 'canned-replies':
        view = cannedRepliesView(ui, await listCannedReplies(db, siteId), flash, refused);
        break;
      case 'mail': {
        // Read from the settings row, not this node's copy, so the page shows a save at once.
        const row = await loadSettings(db, siteId);
        const applied = parseInstanceSettings(row.applied);
        const shown = refused?.values;
        view = mailView(
          ui,
          {
            values: {
              HELPDESK_SUPPORT_ADDRESS: shown?.HELPDESK_SUPPORT_ADDRESS ?? row.applied.HELPDESK_SUPPORT_ADDRESS ?? '',
              HELPDESK_SENDER_NAME: shown?.HELPDESK_SENDER_NAME ?? row.applied.HELPDESK_SENDER_NAME ?? '',
              HELPDESK_AUTO_REPLY: shown
                ? shown.HELPDESK_AUTO_REPLY === 'on'
                : (parseBoolean(row.applied.HELPDESK_AUTO_REPLY ?? '') ?? false),
            },
            titleName: applied.values.FORUM_TITLE?.trim() || siteId,
            sends: app.mailOutbox.enabledFor(applied),
            pendingElsewhere: diffSettings(row.applied, row.desired)
              .map((change) => change.name)
              .filter((name) => !(MAIL_SETTINGS as readonly string[]).includes(name)),
            settingsUrl: '/admin/settings',
          },
          flash,
          refused,
        );
        break;
      }
    }
    return sendPage(reply, ui, `Help desk settings`, view, { status, private: true, head: INBOX_HEAD });
  }

  /**
   * Runs a form's change and goes back to its page with `done`; a refusal of the service (4xx)
   * shows the page again with the form's values and the reason.
   */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    page: AdminPage,
    form: string,
    names: readonly string[],
    write: () => Promise<string>,
  ): Promise<FastifyReply> {
    try {
      const done = await write();
      return seeOther(reply, `/desk/admin/${page}?done=${done}`);
    } catch (error) {
      const refused = refusal(error);
      if (!refused) throw error;
      const values = Object.fromEntries(names.map((name) => [name, field(request, name, 20_000) ?? '']));
      return render(request, reply, page, { form, values, error: refused.message }, refused.status);
    }
  }

  // The help desk's mail settings are instance settings: saved and applied at once, as
  // `blume settings set` and `apply` would, with any other saved change.
  app.post('/desk/admin/mail', { preHandler: ADMIN_FORM }, (request, reply) =>
    change(request, reply, 'mail', 'mail', MAIL_SETTINGS, async () => {
      const siteId = request.helpdesk.site.id;
      const changes = {
        HELPDESK_SUPPORT_ADDRESS: field(request, 'HELPDESK_SUPPORT_ADDRESS', MAX_SETTING_LENGTH) ?? '',
        HELPDESK_SENDER_NAME: field(request, 'HELPDESK_SENDER_NAME', MAX_SETTING_LENGTH) ?? '',
        HELPDESK_AUTO_REPLY: field(request, 'HELPDESK_AUTO_REPLY', 5) === 'on' ? 'true' : '',
      };
      // Saved and applied in one transaction: the page never answers an error for a change it kept.
      await db.transaction(async (tx) => {
        await updateDesiredSettings(tx, siteId, changes, app.deps.config.secretKey);
        await applyDesiredSettings(tx, siteId);
      });
      return 'saved';
    }),
  );

  app.get('/desk/admin', { preHandler: ADMIN_PAGE }, async (_request, reply) =>
    seeOther(reply, '/desk/admin/categories'),
  );

  for (const page of ['categories', 'agents', 'sla', 'tags', 'canned-replies', 'mail'] as const)
    app.get<WithDone>(`/desk/admin/${page}`, { preHandler: ADMIN_PAGE }, (request, reply) =>
      render(request, reply, page),
    );

  app.post('/desk/admin/categories', { preHandler: ADMIN_FORM }, (request, reply) =>
    change(request, reply, 'categories', 'new', ['name', 'description'], async () => {
      const name = field(request, 'name', 100)?.trim();
      if (!name) throw new AppError('unprocessable', 'Give the category a name of at most 100 characters.');
      await createCategory(db, request.helpdesk.site.id, { name, description: field(request, 'description', 2000) });
      return 'added';
    }),
  );

  app.post<WithId>('/desk/admin/categories/:id', { schema: IdParams, preHandler: ADMIN_FORM }, (request, reply) =>
    change(request, reply, 'categories', request.params.id, ['name'], async () => {
      const name = field(request, 'name', 100)?.trim();
      if (!name) throw new AppError('unprocessable', 'Give the category a name of at most 100 characters.');
      await updateCategory(db, request.helpdesk.site.id, request.params.id, { name });
      return 'renamed';
    }),
  );

  app.post<WithId>(
    '/desk/admin/categories/:id/archive',
    { schema: IdParams, preHandler: ADMIN_FORM },
    async (request, reply) => {
      const archived = field(request, 'archived', 5) !== 'false';
      await updateCategory(db, request.helpdesk.site.id, request.params.id, { archived });
      return seeOther(reply, `/desk/admin/categories?done=${archived ? 'archived' : 'restored'}`);
    },
  );

  app.post('/desk/admin/agents', { preHandler: ADMIN_FORM }, (request, reply) =>
    change(request, reply, 'agents', 'new', ['username'], async () => {
      const siteId = request.helpdesk.site.id;
      const username = field(request, 'username', 60)?.trim().replace(/^@/, '') ?? '';
      const member = username ? await findMemberByUsername(db, siteId, username) : undefined;
      if (!member) throw new AppError('unprocessable', `No member "${username}" in this community.`);
      if (await findAgent(db, siteId, member.id))
        throw new AppError('unprocessable', `${member.username} is an agent already.`);
      await makeAgent(db, siteId, member.id);
      return 'added';
    }),
  );

  app.post<WithId>(
    '/desk/admin/agents/:id',
    { schema: IdParams, preHandler: ADMIN_FORM, bodyLimit: FORM_BODY_LIMIT },
    (request, reply) =>
      change(request, reply, 'agents', request.params.id, ['capacity'], async () => {
        const { site, caller } = request.helpdesk;
        const capacity = field(request, 'capacity', 10)?.trim() ?? '';
        if (!/^\d{1,4}$/.test(capacity) || Number(capacity) > 1000)
          throw new AppError('unprocessable', 'The capacity is a number of tickets from 0 to 1000.');
        const form = (request.body ?? {}) as Record<string, unknown>;
        const categoryIds = Object.keys(form)
          .map((name) => /^category-(.{1,100})$/.exec(name)?.[1])
          .filter((id): id is string => id !== undefined);
        // Archived categories are not on the form: the agent keeps serving those they served.
        const archived = (await listCategories(db, site.id)).filter((c) => c.archivedAt).map((c) => c.id);
        const agent = (await listAgents(db, site.id)).find((view) => view.agent.memberId === request.params.id);
        if (!agent) throw new AppError('agent_not_found', 'No such agent.');
        await updateAgent(
          db,
          site.id,
          request.params.id,
          {
            capacity: Number(capacity),
            available: field(request, 'available', 5) === 'on',
            categoryIds: [...categoryIds, ...agent.categoryIds.filter((id) => archived.includes(id))],
          },
          actorOf(caller),
        );
        return 'saved';
      }),
  );

  app.post('/desk/admin/sla', { preHandler: ADMIN_FORM }, (request, reply) => {
    const names = TICKET_PRIORITIES.flatMap((priority) => [`first-${priority}`, `resolution-${priority}`]);
    return change(request, reply, 'sla', 'all', names, async () => {
      const minutes = (name: string) => {
        const value = field(request, name, 10)?.trim() ?? '';
        if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > MAX_MINUTES)
          throw new AppError('unprocessable', `Each target is a number of minutes from 1 to ${MAX_MINUTES}.`);
        return Number(value);
      };
      const targets = TICKET_PRIORITIES.map(
        (priority) =>
          [
            priority,
            {
              firstResponseMinutes: minutes(`first-${priority}`),
              resolutionMinutes: minutes(`resolution-${priority}`),
            },
          ] as const,
      );
      for (const [priority, target] of targets) await setSlaPolicy(db, request.helpdesk.site.id, priority, target);
      return 'saved';
    });
  });

  app.post('/desk/admin/tags/rename', { preHandler: ADMIN_FORM }, (request, reply) => {
    const tag = field(request, 'tag', 50) ?? '';
    return change(request, reply, 'tags', tag, ['name'], async () => {
      const { site, caller } = request.helpdesk;
      await renameTag(db, site.id, tag, field(request, 'name', 50) ?? '', actorOf(caller));
      return 'renamed';
    });
  });

  app.post('/desk/admin/tags/delete', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const { site, caller } = request.helpdesk;
    await deleteTag(db, site.id, field(request, 'tag', 50) ?? '', actorOf(caller));
    return seeOther(reply, '/desk/admin/tags?done=deleted');
  });

  app.post('/desk/admin/canned-replies', { preHandler: ADMIN_FORM, bodyLimit: FORM_BODY_LIMIT }, (request, reply) =>
    change(request, reply, 'canned-replies', 'new', ['name', 'body'], async () => {
      await createCannedReply(db, request.helpdesk.site.id, {
        name: field(request, 'name', 100) ?? '',
        body: field(request, 'body', 20_000) ?? '',
      });
      return 'added';
    }),
  );

  app.post<WithId>(
    '/desk/admin/canned-replies/:id',
    { schema: IdParams, preHandler: ADMIN_FORM, bodyLimit: FORM_BODY_LIMIT },
    (request, reply) =>
      change(request, reply, 'canned-replies', request.params.id, ['name', 'body'], async () => {
        await updateCannedReply(db, request.helpdesk.site.id, request.params.id, {
          name: field(request, 'name', 100) ?? '',
          body: field(request, 'body', 20_000) ?? '',
        });
        return 'saved';
      }),
  );

  app.post<WithId>(
    '/desk/admin/canned-replies/:id/delete',
    { schema: IdParams, preHandler: ADMIN_FORM },
    async (request, reply) => {
      await deleteCannedReply(db, request.helpdesk.site.id, request.params.id);
      return seeOther(reply, '/desk/admin/canned-replies?done=deleted');
    },
  );
}
