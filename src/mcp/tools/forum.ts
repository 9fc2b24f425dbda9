// The forum group (5 tools) over the Forum API of the tenant, with a member's forum token.
import { z } from 'zod';
import type { BlumeClient } from '../api.js';
import { defineTool, type ToolDefinition, type ToolGroup } from '../tool.js';
import { pageArgs, pageNote, pageQuery, paginationOf, Pagination } from './pagination.js';

const API = '/api/forum/v1';
const Forum = z.looseObject({ id: z.string(), slug: z.string(), name: z.string() });
const Topic = z.looseObject({ id: z.string(), forum_id: z.string(), title: z.string() });
const Post = z.looseObject({ id: z.string(), topic_id: z.string(), body: z.string().optional() });
type Topic = z.infer<typeof Topic>;
type Post = z.infer<typeof Post>;

function definitions(client: BlumeClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'forum_list_forums',
      title: 'List forums',
      description: "The forums of the community the forum token's member can see.",
      input: { ...pageArgs },
      output: { forums: z.array(Forum), pagination: Pagination },
      hints: { readOnly: true },
      run: async (args) => {
        const query = pageQuery(args);
        const answer = await client.call<z.infer<typeof Forum>[]>('forum', 'GET', `${API}/forums`, { query });
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { forums: answer.data, pagination },
          text: `${answer.data.length} forums: ${pageNote('forum_list_forums', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'forum_list_topics',
      title: 'List topics',
      description: 'Topics, newest activity first: of one forum (forum_id) or of every forum the member can see.',
      input: { forum_id: z.string().optional().describe('A forum id; omit it for every forum.'), ...pageArgs },
      output: { topics: z.array(Topic), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ forum_id, ...args }) => {
        const query = pageQuery(args);
        const answer = await client.call<Topic[]>('forum', 'GET', `${API}/topics`, { query: { forum_id, ...query } });
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { topics: answer.data, pagination },
          text: `${answer.data.length} topics: ${pageNote('forum_list_topics', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'forum_get_topic',
      title: 'Read a topic',
      description:
        'A topic with a page of its posts: classic (flat, oldest first) or threaded (top-level posts, each with its replies nested).',
      input: { topic_id: z.string(), view: z.enum(['classic', 'threaded']).optional(), ...pageArgs },
      output: { topic: Topic, posts: z.array(Post), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ topic_id, view, ...args }) => {
        const query = pageQuery(args);
        const topic = (await client.call<Topic>('forum', 'GET', `${API}/topics/${encodeURIComponent(topic_id)}`)).data;
        const answer = await client.call<Post[]>(
          'forum',
          'GET',
          `${API}/topics/${encodeURIComponent(topic_id)}/posts`,
          { query: { view, ...query } },
        );
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { topic, posts: answer.data, pagination },
          text: `Topic "${topic.title}", ${answer.data.length} posts with their bodies: ${pageNote('forum_get_topic', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'forum_create_topic',
      title: 'Start a topic',
      description: "Starts a topic in a forum as the forum token's member; body is Markdown.",
      input: { forum_id: z.string(), title: z.string().min(1), body: z.string().min(1) },
      output: { topic: Topic },
      hints: { creates: true },
      run: async ({ forum_id, title, body }) => {
        const topic = (await client.call<Topic>('forum', 'POST', `${API}/topics`, { json: { forum_id, title, body } }))
          .data;
        return { data: { topic }, text: `Started topic ${topic.id}: ${topic.title}` };
      },
    }),
    defineTool({
      name: 'forum_reply',
      title: 'Reply in a topic',
      description:
        "Posts a reply to a topic (parent_id: the post it answers, for threaded view) as the forum token's member; body is Markdown.",
      input: { topic_id: z.string(), body: z.string().min(1), parent_id: z.string().optional() },
      output: { post: Post },
      hints: { creates: true },
      run: async ({ topic_id, body, parent_id }) => {
        const post = (
          await client.call<Post>('forum', 'POST', `${API}/topics/${encodeURIComponent(topic_id)}/posts`, {
            json: { body, ...(parent_id ? { parent_id } : {}) },
          })
        ).data;
        return { data: { post }, text: `Posted reply ${post.id} in topic ${topic_id}.` };
      },
    }),
  ];
}

export const forumTools: ToolGroup = {
  name: 'forum',
  credential: ({ forumToken }) => (forumToken ? 'forumToken' : undefined),
  tools: async ({ client }) => {
    const { tenantUrl, forumToken } = client.credentials;
    if (!tenantUrl || !forumToken) return [];
    // The member's own token list answers only to a valid token on a site whose plan has the Forum API.
    await client.call('forum', 'GET', `${API}/auth/tokens`);
    return definitions(client);
  },
};
