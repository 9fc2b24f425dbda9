// The admin area of a community (/admin): its overview with the first-run checklist, and its
// categories and forums. Every page and form is the instance admins' alone: guests are sent to log
// in, moderators and members get a 403 page. The writes go through the same structure service as
// the Forum API.
import { field, seeOther } from '../../../http/forms.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../http/errors.js';
import {
  countForumsOfCategory,
  createCategory,
  createForum,
  deleteCategory,
  deleteForum,
  findCategory,
  findForum,
  listAllForums,
  listCategories,
  moveCategory,
  moveForum,
  updateCategory,
  updateForum,
  type Direction,
} from '../../structure.js';
import { SLUG_PATTERN } from '../../schemas.js';
import type { ForumRow } from '../../tables.js';
import { sendPage } from '../forms.js';
import { ADMIN_FORM, ADMIN_PAGE } from './access.js';
import { firstRunChecklist } from './checklist.js';
import { adminMemberRoutes } from './member-routes.js';
import { adminSettingsRoutes } from './settings-routes.js';
import {
  editCategoryView,
  editForumView,
  structureView,
  type CategoryValues,
  type FieldErrors,
  type ForumValues,
  type StructurePage,
} from './structure-views.js';
import { confirmView, overviewView } from './views.js';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
type WithId = { Params: { id: string } };
const SLUG = new RegExp(SLUG_PATTERN);
const VISIBILITIES: readonly string[] = ['public', 'members', 'staff'] satisfies ForumRow['visibility'][];

function readCategory(request: FastifyRequest): { values: CategoryValues; errors: FieldErrors } {
  // `field` answers undefined for a value over its limit: that is an error, never an empty value.
  const name = field(request, 'name', 100);
  const slug = field(request, 'slug', 64);
  const description = field(request, 'description', 2000);
  const values = {
    name: name?.trim() ?? '',
    slug: slug?.trim().toLowerCase() ?? '',
    description: description?.trim() ?? '',
  };
  const errors: FieldErrors = {};
  if (values.name === '') errors.name = 'Enter a name of 1 to 100 characters.';
  if (!SLUG.test(values.slug))
    errors.slug = 'Use 1 to 64 lower-case letters, digits and hyphens, not starting or ending with a hyphen.';
  if (description === undefined) errors.description = 'Keep the description under 2,000 characters.';
  return { values, errors };
}

function readForum(request: FastifyRequest): { values: ForumValues; errors: FieldErrors } {
  const { values: base, errors } = readCategory(request);
  const visibility = field(request, 'visibility', 20) ?? '';
  const values: ForumValues = {
    ...base,
    category: field(request, 'category', 100) ?? '',
    visibility: VISIBILITIES.includes(visibility) ? (visibility as ForumRow['visibility']) : 'public',
    locked: field(request, 'locked', 5) === 'on',
  };
  if (!VISIBILITIES.includes(visibility)) errors.visibility = 'Choose who can see the forum.';
  return { values, errors };
}

/** The service's refusals a form can show beside the field they concern. */
function fieldError(error: unknown): FieldErrors | undefined {
  if (!(error instanceof AppError)) return undefined;
  if (error.code === 'slug_taken') return { slug: error.message };
  if (error.code === 'category_not_found') return { category: 'That category no longer exists.' };
  return undefined;
}

function direction(request: FastifyRequest): Direction {
  const value = field(request, 'direction', 4);
  if (value !== 'up' && value !== 'down') throw new AppError('bad_request', 'Move up or down.');
  return value;
}

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get('/admin', { preHandler: ADMIN_PAGE }, async (request, reply) => {
    const ui = request.ui;
    const checklist = await firstRunChecklist(db, ui.site.id, {
      settings: ui.settings,
      mailEnabled: app.mailOutbox.enabledFor(ui.settings),
    });
    return sendPage(reply, ui, 'Admin', overviewView(ui, checklist), { private: true });
  });

  async function structurePage(request: FastifyRequest, extra: Partial<StructurePage>, status = 200) {
    const ui = request.ui;
    const [categories, forums] = await Promise.all([
      listCategories(db, ui.site.id, ui.viewer),
      listAllForums(db, ui.site.id),
    ]);
    return { ui, status, page: { categories, forums, ...extra } };
  }

  app.get('/admin/structure', { preHandler: ADMIN_PAGE }, async (request, reply) => {
    const { ui, page } = await structurePage(request, {});
    return sendPage(reply, ui, 'Categories and forums', structureView(ui, page), { private: true });
  });

  app.post('/admin/categories', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const { values, errors } = readCategory(request);
    const again = async (fieldErrors: FieldErrors, status: number) => {
      const { ui, page } = await structurePage(request, { newCategory: { values, errors: fieldErrors } });
      return sendPage(reply, ui, 'Categories and forums', structureView(ui, page), { status, private: true });
    };
    if (Object.keys(errors).length > 0) return again(errors, 422);
    try {
      await createCategory(db, request.ui.site.id, values);
    } catch (error) {
      const shown = fieldError(error);
      if (shown) return again(shown, (error as AppError).status);
      throw error;
    }
    return seeOther(reply, '/admin/structure');
  });

  app.post('/admin/forums', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const { values, errors } = readForum(request);
    const again = async (fieldErrors: FieldErrors, status: number) => {
      const { ui, page } = await structurePage(request, { newForum: { values, errors: fieldErrors } });
      return sendPage(reply, ui, 'Categories and forums', structureView(ui, page), { status, private: true });
    };
    if (Object.keys(errors).length > 0) return again(errors, 422);
    try {
      const { category, ...rest } = values;
      await createForum(db, request.ui.site.id, { ...rest, category_id: category || null });
    } catch (error) {
      const shown = fieldError(error);
      if (shown) return again(shown, (error as AppError).status);
      throw error;
    }
    return seeOther(reply, '/admin/structure');
  });

  app.get<WithId>(
    '/admin/categories/:id',
    { schema: { params: IdParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const ui = request.ui;
      const category = await findCategory(db, ui.site.id, request.params.id);
      return sendPage(reply, ui, 'Edit category', editCategoryView(ui, category, category, {}), { private: true });
    },
  );

  app.post<WithId>(
    '/admin/categories/:id',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      const ui = request.ui;
      const category = await findCategory(db, ui.site.id, request.params.id);
      const { values, errors } = readCategory(request);
      const again = (fieldErrors: FieldErrors, status: number) =>
        sendPage(reply, ui, 'Edit category', editCategoryView(ui, category, values, fieldErrors), {
          status,
          private: true,
        });
      if (Object.keys(errors).length > 0) return again(errors, 422);
      try {
        await updateCategory(db, ui.site.id, category.id, values);
      } catch (error) {
        const shown = fieldError(error);
        if (shown) return again(shown, (error as AppError).status);
        throw error;
      }
      return seeOther(reply, '/admin/structure');
    },
  );

  app.post<WithId>(
    '/admin/categories/:id/move',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      await moveCategory(db, request.ui.site.id, request.params.id, direction(request));
      return seeOther(reply, '/admin/structure');
    },
  );

  app.get<WithId>(
    '/admin/categories/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const ui = request.ui;
      const category = await findCategory(db, ui.site.id, request.params.id);
      const held = await countForumsOfCategory(db, ui.site.id, category.id);
      const consequences = `The category “${category.name}” goes. ${
        held === 0
          ? 'It holds no forums.'
          : `Its ${held} forum${held === 1 ? '' : 's'} and their topics stay, without a category.`
      }`;
      const view = confirmView(
        ui,
        'structure',
        `Delete the category “${category.name}”?`,
        consequences,
        `/admin/categories/${category.id}/delete`,
        'Delete category',
        '/admin/structure',
      );
      return sendPage(reply, ui, 'Delete category', view, { private: true });
    },
  );

  app.post<WithId>(
    '/admin/categories/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      await deleteCategory(db, request.ui.site.id, request.params.id);
      return seeOther(reply, '/admin/structure');
    },
  );

  const forumOf = async (siteId: string, id: string): Promise<ForumRow> => {
    const forum = await findForum(db, siteId, id);
    if (!forum) throw new AppError('forum_not_found', `No forum "${id}".`);
    return forum;
  };

  const forumValues = (forum: ForumRow): ForumValues => ({
    name: forum.name,
    slug: forum.slug,
    description: forum.description,
    category: forum.categoryId ?? '',
    visibility: forum.visibility,
    locked: forum.locked,
  });

  app.get<WithId>(
    '/admin/forums/:id',
    { schema: { params: IdParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const ui = request.ui;
      const forum = await forumOf(ui.site.id, request.params.id);
      const categories = await listCategories(db, ui.site.id, ui.viewer);
      return sendPage(reply, ui, 'Edit forum', editForumView(ui, forum, categories, forumValues(forum), {}), {
        private: true,
      });
    },
  );

  app.post<WithId>(
    '/admin/forums/:id',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      const ui = request.ui;
      const forum = await forumOf(ui.site.id, request.params.id);
      const { values, errors } = readForum(request);
      const again = async (fieldErrors: FieldErrors, status: number) =>
        sendPage(
          reply,
          ui,
          'Edit forum',
          editForumView(ui, forum, await listCategories(db, ui.site.id, ui.viewer), values, fieldErrors),
          { status, private: true },
        );
      if (Object.keys(errors).length > 0) return again(errors, 422);
      try {
        const { category, ...rest } = values;
        await updateForum(db, ui.site.id, forum.id, { ...rest, category_id: category || null });
      } catch (error) {
        const shown = fieldError(error);
        if (shown) return again(shown, (error as AppError).status);
        throw error;
      }
      return seeOther(reply, '/admin/structure');
    },
  );

  app.post<WithId>(
    '/admin/forums/:id/move',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      await moveForum(db, request.ui.site.id, request.params.id, direction(request));
      return seeOther(reply, '/admin/structure');
    },
  );

  app.get<WithId>(
    '/admin/forums/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const ui = request.ui;
      const forum = await forumOf(ui.site.id, request.params.id);
      const topics = `${forum.topicCount} topic${forum.topicCount === 1 ? '' : 's'}`;
      const posts = `${forum.postCount} post${forum.postCount === 1 ? '' : 's'}`;
      const consequences = `The forum “${forum.name}” goes for good, with its ${topics} and ${posts}. This cannot be \
undone.`;
      const view = confirmView(
        ui,
        'structure',
        `Delete the forum “${forum.name}”?`,
        consequences,
        `/admin/forums/${forum.id}/delete`,
        `Delete forum and ${topics}`,
        '/admin/structure',
      );
      return sendPage(reply, ui, 'Delete forum', view, { private: true });
    },
  );

  app.post<WithId>(
    '/admin/forums/:id/delete',
    { schema: { params: IdParams }, preHandler: ADMIN_FORM },
    async (request, reply) => {
      await deleteForum(db, request.ui.site.id, request.params.id);
      return seeOther(reply, '/admin/structure');
    },
  );

  await app.register(adminMemberRoutes);
  await app.register(adminSettingsRoutes);
}
