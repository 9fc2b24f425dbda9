// Categories and forums in the admin area: lists with reorder buttons, create and edit forms, and
// delete confirmations that say what goes.
import { SLUG_PATTERN } from '../../schemas.js';
import type { ForumCategoryRow, ForumRow } from '../../tables.js';
import type { UiContext } from '../context.js';
import { html, type SafeHtml } from '../../../lib/html.js';
import { csrfField, postButton } from '../layout.js';
import { checkbox, selectField, textArea, textField } from './fields.js';
import { adminFrame, type Flash } from './views.js';

export interface CategoryValues {
  name: string;
  slug: string;
  description: string;
}

export interface ForumValues extends CategoryValues {
  category: string;
  visibility: ForumRow['visibility'];
  locked: boolean;
}

/** Problems with a submitted form, by field name. */
export type FieldErrors = Partial<Record<string, string>>;

const EMPTY_CATEGORY: CategoryValues = { name: '', slug: '', description: '' };
const EMPTY_FORUM: ForumValues = { ...EMPTY_CATEGORY, category: '', visibility: 'public', locked: false };

const VISIBILITY: ReadonlyArray<readonly [ForumRow['visibility'], string]> = [
  ['public', 'Public: everyone, guests included'],
  ['members', 'Members: logged-in members'],
  ['staff', 'Staff: moderators and admins'],
];

const VISIBILITY_BADGE: Record<ForumRow['visibility'], string> = {
  public: 'Public',
  members: 'Members only',
  staff: 'Staff only',
};

function moveButtons(ui: UiContext, base: string, name: string, first: boolean, last: boolean): SafeHtml {
  if (first && last) return html``;
  return html`<div class="actions">${
    first ? '' : postButton(ui, `${base}/move`, 'Up', { direction: 'up' }, 'secondary small')
  }${
    last ? '' : postButton(ui, `${base}/move`, 'Down', { direction: 'down' }, 'secondary small')
  }<span class="sr-only"> (${name})</span></div>`;
}

function categoryFields(values: CategoryValues, errors: FieldErrors, prefix: string): SafeHtml {
  return html`${textField('name', 'Name', values.name, 'text', {
    id: `${prefix}-name`,
    required: true,
    maxlength: 100,
    error: errors.name,
  })}
${textField('slug', 'Slug', values.slug, 'text', {
  id: `${prefix}-slug`,
  required: true,
  maxlength: 64,
  pattern: SLUG_PATTERN,
  hint: 'Lower-case letters, digits and hyphens; used in links.',
  error: errors.slug,
})}
${textArea('description', 'Description', values.description, {
  id: `${prefix}-description`,
  maxlength: 2000,
  error: errors.description,
})}`;
}

function forumFields(
  values: ForumValues,
  categories: ForumCategoryRow[],
  errors: FieldErrors,
  prefix: string,
): SafeHtml {
  return html`${categoryFields(values, errors, prefix)}
${selectField(
  'category',
  'Category',
  values.category,
  [['', 'No category'], ...categories.map((c) => [c.id, c.name] as const)],
  { id: `${prefix}-category`, error: errors.category },
)}
${selectField('visibility', 'Who can see it', values.visibility, VISIBILITY, { id: `${prefix}-visibility` })}
${checkbox('locked', 'Locked: only moderators and admins start topics', values.locked, { id: `${prefix}-locked` })}`;
}

export interface StructurePage {
  categories: ForumCategoryRow[];
  forums: ForumRow[];
  newCategory?: { values: CategoryValues; errors: FieldErrors };
  newForum?: { values: ForumValues; errors: FieldErrors };
  flash?: Flash;
}

export function structureView(ui: UiContext, page: StructurePage): SafeHtml {
  const { categories, forums } = page;
  const categoryName = new Map(categories.map((c) => [c.id, c.name]));
  const groups = [...categories.map((c) => c.id), null].map((id) =>
    forums.filter(
      (f) => f.categoryId === id || (id === null && f.categoryId !== null && !categoryName.has(f.categoryId)),
    ),
  );
  return adminFrame(
    ui,
    'structure',
    'Categories and forums',
    html`<section aria-labelledby="categories-heading"><h2 id="categories-heading">Categories</h2>
${
  categories.length === 0
    ? html`<p class="muted">No categories yet. Forums work without one; categories group them on the index.</p>`
    : html`<table class="list admin"><thead><tr><th scope="col">Category</th><th scope="col">Order</th><th scope="col">\
<span class="sr-only">Actions</span></th></tr></thead><tbody>${categories.map(
        (
          category,
          i,
        ) => html`<tr><td><span class="title">${category.name}</span><div class="meta">/${category.slug}</div></td>
<td>${moveButtons(ui, `/admin/categories/${category.id}`, category.name, i === 0, i === categories.length - 1)}</td>
<td><div class="actions"><a href="/admin/categories/${category.id}">Edit\
<span class="sr-only"> ${category.name}</span></a>\
<a class="danger" href="/admin/categories/${category.id}/delete">Delete\
<span class="sr-only"> ${category.name}</span></a></div></td></tr>`,
      )}</tbody></table>`
}
<details class="panel" id="new-category"${
      categories.length === 0 || page.newCategory ? html` open` : ''
    }><summary>New category</summary>
<form class="stack" method="post" action="/admin/categories">${csrfField(ui)}${categoryFields(
      page.newCategory?.values ?? EMPTY_CATEGORY,
      page.newCategory?.errors ?? {},
      'new-category',
    )}<div><button type="submit">Create category</button></div></form></details>
</section>
<section aria-labelledby="forums-heading"><h2 id="forums-heading">Forums</h2>
${
  forums.length === 0
    ? html`<p class="muted">No forums yet: create the first one below.</p>`
    : html`<table class="list admin"><thead><tr><th scope="col">Forum</th><th scope="col" class="num">Topics</th>\
<th scope="col">Order</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${groups.map(
        (group) =>
          group.map(
            (forum, i) => html`<tr><td><a class="title" href="/f/${forum.slug}">${forum.name}</a>\
<span class="badge">${VISIBILITY_BADGE[forum.visibility]}</span>${
              forum.locked ? html`<span class="badge">Locked</span>` : ''
            }<div class="meta">${
              forum.categoryId ? (categoryName.get(forum.categoryId) ?? 'No category') : 'No category'
            } · /f/${forum.slug}</div></td>
<td class="num">${forum.topicCount}</td>
<td>${moveButtons(ui, `/admin/forums/${forum.id}`, forum.name, i === 0, i === group.length - 1)}</td>
<td><div class="actions"><a href="/admin/forums/${forum.id}">Edit<span class="sr-only"> ${forum.name}</span></a>\
<a class="danger" href="/admin/forums/${forum.id}/delete">Delete\
<span class="sr-only"> ${forum.name}</span></a></div></td></tr>`,
          ),
      )}</tbody></table>`
}
<details class="panel" id="new-forum"${
      forums.length === 0 || page.newForum ? html` open` : ''
    }><summary>New forum</summary>
<form class="stack" method="post" action="/admin/forums">${csrfField(ui)}${forumFields(
      page.newForum?.values ?? EMPTY_FORUM,
      categories,
      page.newForum?.errors ?? {},
      'new-forum',
    )}<div><button type="submit">Create forum</button></div></form></details>
</section>`,
    page.flash,
  );
}

export function editCategoryView(
  ui: UiContext,
  category: ForumCategoryRow,
  values: CategoryValues,
  errors: FieldErrors,
): SafeHtml {
  return adminFrame(
    ui,
    'structure',
    `Edit category “${category.name}”`,
    html`<form class="stack" method="post" action="/admin/categories/${category.id}">${csrfField(ui)}${categoryFields(
      values,
      errors,
      'category',
    )}<div class="actions"><button type="submit">Save</button><a href="/admin/structure">Cancel</a></div></form>`,
  );
}

export function editForumView(
  ui: UiContext,
  forum: ForumRow,
  categories: ForumCategoryRow[],
  values: ForumValues,
  errors: FieldErrors,
): SafeHtml {
  return adminFrame(
    ui,
    'structure',
    `Edit forum “${forum.name}”`,
    html`<form class="stack" method="post" action="/admin/forums/${forum.id}">${csrfField(ui)}${forumFields(
      values,
      categories,
      errors,
      'forum',
    )}<div class="actions"><button type="submit">Save</button><a href="/admin/structure">Cancel</a></div></form>`,
  );
}
