// What search engines and link previews read: robots.txt, sitemap.xml of what a guest may see, and
// the canonical URL and OpenGraph tags of topic pages. Like feeds, these show a guest's view.
import type { FastifyInstance } from 'fastify';
import { escapeXml } from '../../lib/html.js';
import { requestOrigin } from '../mail/context.js';
import { GUEST } from '../policy.js';
import { listVisibleForums } from '../structure.js';
import { listTopics } from '../topic-list.js';
import type { ForumTopicRow } from '../tables.js';
import { loadGuestUi } from './context.js';
import { html, type SafeHtml } from '../../lib/html.js';

/** The sitemap protocol's limit of URLs per file. */
const SITEMAP_TOPICS = 49_000;

export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  app.get('/robots.txt', { preHandler: loadGuestUi }, async (request, reply) => {
    const lines = [
      'User-agent: *',
      ...['/admin', '/account', '/login', '/signup', '/search', '/api/'].map((path) => `Disallow: ${path}`),
      '',
      `Sitemap: ${requestOrigin(request)}/sitemap.xml`,
    ];
    return reply
      .type('text/plain; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .send(`${lines.join('\n')}\n`);
  });

  app.get('/sitemap.xml', { preHandler: loadGuestUi }, async (request, reply) => {
    const { site } = request.ui;
    const origin = requestOrigin(request);
    const [forums, { rows: topics }] = await Promise.all([
      listVisibleForums(db, site.id, GUEST),
      listTopics(db, site.id, GUEST, {}, { page: 1, pageSize: SITEMAP_TOPICS, offset: 0 }),
    ]);
    const url = (path: string, lastmod?: Date) =>
      `<url><loc>${escapeXml(`${origin}${path}`)}</loc>${
        lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ''
      }</url>`;
    const body = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      url('/'),
      ...forums.map(({ forum }) => url(`/f/${encodeURIComponent(forum.slug)}`)),
      ...topics.map(({ topic }) => url(`/t/${encodeURIComponent(topic.id)}`, topic.lastPostAt)),
      '</urlset>',
      '',
    ].join('\n');
    return reply.type('application/xml; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(body);
  });
}

/** Plain text of sanitized post HTML, cut at `max` characters, for a meta description. */
function describe(bodyHtml: string, max = 200): string {
  const text = bodyHtml
    .replace(/<[^>]*>/g, ' ')
    .replace(
      /&(lt|gt|quot|#39|amp);/g,
      (_all, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name] ?? '',
    )
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** The canonical URL and link-preview tags of a topic page. */
export function topicHead(input: {
  origin: string;
  siteTitle: string;
  topic: ForumTopicRow;
  page: number;
  openingHtml: string | undefined;
}): SafeHtml {
  const canonical = `${input.origin}/t/${encodeURIComponent(input.topic.id)}${
    input.page > 1 ? `?page=${input.page}` : ''
  }`;
  const description = input.openingHtml ? describe(input.openingHtml) : '';
  return html`<link rel="canonical" href="${canonical}">
<meta property="og:type" content="article">
<meta property="og:site_name" content="${input.siteTitle}">
<meta property="og:title" content="${input.topic.title}">
<meta property="og:url" content="${canonical}">
<meta name="twitter:card" content="summary">
${
  description
    ? html`<meta name="description" content="${description}">
<meta property="og:description" content="${description}">`
    : ''
}`;
}
