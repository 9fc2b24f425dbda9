// Walks every help desk route that shows tickets, on both databases, with each kind of credential:
// anonymous, a member, a requester (a member who opened a ticket through /support), an agent of
// another category, the agent of the category, a community admin, the owner's account, and API
// keys of each scope (and one of another site). Nothing a caller may not see comes back: no
// subject, body, reply or internal note, in the API's bodies or totals or the pages; the writes of a
// caller who may not see a ticket answer like a missing ticket and change nothing. Each caller
// does see what it may, so the walk can tell.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintApiKey } from '../../test/factories/cms.js';
import { addMember, communityHost, makeCommunity, type ForumActor } from '../../test/factories/forum.js';
import { HELPDESK_BASE } from '../../test/factories/helpdesk.js';
import { buildTestApp, json, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { UiClient } from '../../test/helpers/forum-ui.js';
import { makeAgent } from './agents.js';
import { createCategory } from './categories.js';
import { findTicket } from './tickets.js';

/** Marker words of each ticket's subject, body, public reply and internal note. */
const BILLING = ['Billingsecret', 'billingbodyword', 'billingreplyword'];
const NOTE = ['Notesecret'];
const SHIPPING = ['Shippingsecret', 'shippingbodyword'];
const TRIAGE = ['Triagesecret', 'triagebodyword'];
const EVERYTHING = [...BILLING, ...NOTE, ...SHIPPING, ...TRIAGE];

interface Caller {
  name: string;
  /** Headers of API calls; undefined for callers that use pages only. */
  api?: Record<string, string>;
  /** A logged-in (or guest) client of the pages; undefined for callers that use the API only. */
  ui?: UiClient;
  /** The marker words this caller may see. */
  sees: string[];
  /** The tickets (by key) this caller may see through the API or the inbox. */
  tickets: string[];
}

for (const database of testDatabases) {
  describe(`help desk leak walk [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    const callers: Caller[] = [];
    const ids: Record<string, { id: string; number: number }> = {};
    let billing = '';
    let shipping = '';
    const client = () => new UiClient(t.app, communityHost('desk'));
    const login = async (actor: ForumActor) => {
      const ui = client();
      assert.equal((await ui.login(actor.member.username, actor.password)).statusCode, 303);
      return ui;
    };
    const api = (headers: Record<string, string> | undefined, method: string, path: string, payload?: object) =>
      t.app.inject({
        method: method as 'GET',
        url: `${HELPDESK_BASE}${path}`,
        headers: { host: communityHost('desk'), ...headers },
        ...(payload ? { payload } : {}),
      });

    before(async () => {
      t = await buildTestApp({ database, env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' } });
      owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'desk', 'pro');
      await makeCommunity(t.app, owner, 'elsewhere', 'pro');
      const db = t.app.deps.database.db;
      billing = (await createCategory(db, 'desk', { name: 'Billing' })).id;
      shipping = (await createCategory(db, 'desk', { name: 'Shipping' })).id;
      const ann = await addMember(t.app, 'desk', 'ann');
      const bob = await addMember(t.app, 'desk', 'bob');
      const mem = await addMember(t.app, 'desk', 'mem');
      const rita = await addMember(t.app, 'desk', 'rita');
      const ada = await addMember(t.app, 'desk', 'ada', 'admin');
      await makeAgent(db, 'desk', ann.member.id, { categoryIds: [billing], available: false });
      await makeAgent(db, 'desk', bob.member.id, { categoryIds: [shipping], available: false });
      const write = { authorization: `Bearer ${await mintApiKey(t.app, owner, 'desk', ['helpdesk-write'])}` };

      // Rita opens the billing ticket through the contact form; it goes to Billing and to Ann, who
      // answers and writes an internal note.
      const ritaUi = await login(rita);
      await ritaUi.get('/support');
      assert.equal(
        (await ritaUi.post('/support', { subject: 'Billingsecret invoice', message: 'About billingbodyword.' }))
          .statusCode,
        200,
      );
      const opened = json<Array<{ id: string; number: number; subject: string }>>(
        await api(write, 'GET', '/tickets?q=billingbodyword'),
      );
      ids.billing = { id: opened[0]!.id, number: opened[0]!.number };
      assert.equal(
        (await api(write, 'PATCH', `/tickets/${ids.billing.id}`, { category_id: billing, assignee_id: ann.member.id }))
          .statusCode,
        200,
      );
      const annApi = { 'authentication-token': ann.token };
      assert.equal(
        (await api(annApi, 'POST', `/tickets/${ids.billing.id}/replies`, { body: 'Answer with billingreplyword.' }))
          .statusCode,
        201,
      );
      assert.equal(
        (
          await api(annApi, 'POST', `/tickets/${ids.billing.id}/replies`, {
            body: 'Notesecret: check the ledger.',
            internal: true,
          })
        ).statusCode,
        201,
      );
      const open = async (key: string, subject: string, body: string, categoryId?: string) => {
        const created = json<{ id: string; number: number }>(
          await api(write, 'POST', '/tickets', {
            subject,
            body,
            requester: { email: `${key}@customer.example` },
            ...(categoryId ? { category_id: categoryId } : {}),
          }),
        );
        ids[key] = { id: created.id, number: created.number };
      };
      await open('shipping', 'Shippingsecret parcel', 'Where is shippingbodyword?', shipping);
      assert.equal(
        (await api(write, 'PATCH', `/tickets/${ids.shipping!.id}`, { assignee_id: bob.member.id })).statusCode,
        200,
      );
      await open('triage', 'Triagesecret question', 'Something triagebodyword.');

      const all = ['billing', 'shipping', 'triage'];
      const key = async (scopes: string[], site = 'desk') => ({
        authorization: `Bearer ${await mintApiKey(t.app, owner, site, scopes)}`,
      });
      callers.push(
        { name: 'anonymous', api: {}, ui: client(), sees: [], tickets: [] },
        { name: 'member', api: { 'authentication-token': mem.token }, ui: await login(mem), sees: [], tickets: [] },
        { name: 'requester', api: { 'authentication-token': rita.token }, ui: ritaUi, sees: BILLING, tickets: [] },
        {
          name: 'agent of another category',
          api: { 'authentication-token': bob.token },
          ui: await login(bob),
          sees: [...SHIPPING, ...TRIAGE],
          tickets: ['shipping', 'triage'],
        },
        {
          name: 'agent',
          api: annApi,
          ui: await login(ann),
          sees: [...BILLING, ...NOTE, ...TRIAGE],
          tickets: ['billing', 'triage'],
        },
        {
          name: 'admin',
          api: { 'authentication-token': ada.token },
          ui: await login(ada),
          sees: EVERYTHING,
          tickets: all,
        },
        { name: 'owner account', api: { cookie: owner.cookie }, sees: EVERYTHING, tickets: all },
        { name: 'key helpdesk-read', api: await key(['helpdesk-read']), sees: EVERYTHING, tickets: all },
        { name: 'key helpdesk-write', api: write, sees: EVERYTHING, tickets: all },
        { name: 'key admin', api: await key(['admin']), sees: EVERYTHING, tickets: all },
        { name: 'key cms-read and cms-write', api: await key(['cms-read', 'cms-write']), sees: [], tickets: [] },
        { name: 'key of another site', api: await key(['helpdesk-write'], 'elsewhere'), sees: [], tickets: [] },
      );
    });
    after(() => t.close());

    /** Every read route of the API that shows tickets or their parts. */
    const apiReads = (): string[] => {
      const paths = [
        '/tickets',
        '/tickets?page_size=100',
        '/tickets?assignee=none',
        '/tickets?status=new,open',
        '/tickets?sla=breached',
        '/tickets?sla=at_risk',
        `/tickets?category=${billing}`,
        `/tickets?category=${shipping}`,
        '/tickets?category=none',
      ];
      for (const word of EVERYTHING) paths.push(`/tickets?q=${word}`);
      for (const key of ['billing', 'shipping', 'triage']) {
        const { id, number } = ids[key]!;
        for (const ref of [id, String(number)])
          paths.push(
            `/tickets/${ref}`,
            `/tickets/${ref}/replies`,
            `/tickets/${ref}/replies?internal=false`,
            `/tickets/${ref}/history`,
          );
      }
      paths.push(
        '/agents',
        '/categories',
        '/sla-policies',
        '/reports/tickets',
        '/reports/agents',
        '/reports/categories',
        '/reports/sla',
        '/reports/trends',
        '/openapi.json',
      );
      return paths;
    };

    /** Every page that shows tickets: the agent inbox and the requester's pages. */
    const pages = (): string[] => {
      const paths = [
        '/desk',
        '/desk/mine',
        '/desk/unassigned',
        '/desk/open',
        '/desk/breached',
        '/support',
        '/support/tickets',
      ];
      for (const key of ['billing', 'shipping', 'triage'])
        paths.push(`/desk/tickets/${ids[key]!.number}`, `/support/tickets/${ids[key]!.number}`);
      return paths;
    };

    it('shows no caller a ticket, reply, note or count it may not see, through the API or the pages', async () => {
      for (const caller of callers) {
        const forbidden = EVERYTHING.filter((word) => !caller.sees.includes(word));
        const seen = new Set<string>();
        const check = (where: string, body: string) => {
          for (const word of forbidden) assert.ok(!body.includes(word), `${caller.name}: ${where} shows "${word}"`);
          for (const word of caller.sees) if (body.includes(word)) seen.add(word);
        };
        if (caller.api) {
          for (const path of apiReads()) {
            const response = await api(caller.api, 'GET', path);
            // Every header but Link, which repeats the request's own query.
            const { link: _link, ...headers } = response.headers;
            check(`GET ${path} (${response.statusCode})`, response.body + JSON.stringify(headers));
            if (path.startsWith('/tickets?') && response.statusCode === 200) {
              // The total counts only what the caller sees: every match fits on one page here.
              const listed = json<unknown[]>(response).length;
              assert.equal(
                JSON.parse(String(response.headers['x-pagination'])).total,
                listed,
                `${caller.name}: GET ${path} counts tickets it does not list`,
              );
            }
          }
          const list = await api(caller.api, 'GET', '/tickets?page_size=100');
          const visible =
            list.statusCode === 200
              ? json<Array<{ id: string }>>(list)
                  .map((row) => row.id)
                  .sort()
              : [];
          assert.deepEqual(
            visible,
            caller.tickets.map((key) => ids[key]!.id).sort(),
            `${caller.name}: the tickets listed`,
          );
        }
        if (caller.ui) {
          for (const path of pages()) {
            const response = await caller.ui.get(path);
            check(`page ${path} (${response.statusCode})`, response.body + String(response.headers.location ?? ''));
          }
        }
        assert.deepEqual([...seen].sort(), [...caller.sees].sort(), `${caller.name}: sees what it may`);
      }
    });

    it('answers the writes of a caller who may not see a ticket like a missing one, and changes nothing', async () => {
      const db = t.app.deps.database.db;
      for (const caller of callers) {
        if (!caller.api) continue;
        for (const key of ['billing', 'shipping', 'triage'].filter((k) => !caller.tickets.includes(k))) {
          const { id, number } = ids[key]!;
          const before = await findTicket(db, 'desk', id);
          for (const [method, path, payload] of [
            ['PATCH', `/tickets/${id}`, { priority: 'urgent' }],
            ['PATCH', `/tickets/${number}`, { status: 'closed' }],
            ['POST', `/tickets/${id}/replies`, { body: 'Injected reply.' }],
            ['POST', `/tickets/${id}/draft-reply`, {}],
          ] as const) {
            const response = await api(caller.api, method, path, payload);
            assert.ok(
              [401, 403, 404].includes(response.statusCode),
              `${caller.name}: ${method} ${path} answered ${response.statusCode}`,
            );
            for (const word of EVERYTHING)
              assert.ok(!response.body.includes(word), `${caller.name}: ${method} ${path} shows "${word}"`);
            if (response.statusCode === 404)
              assert.equal(json(response).code, 'ticket_not_found', `${caller.name}: ${method} ${path}`);
          }
          assert.deepEqual(await findTicket(db, 'desk', id), before, `${caller.name} changed ticket ${key}`);
        }
        if (caller.ui) {
          for (const key of ['billing', 'shipping', 'triage'].filter((k) => !caller.tickets.includes(k))) {
            const { id, number } = ids[key]!;
            const before = await findTicket(db, 'desk', id);
            await caller.ui.get('/latest');
            for (const [path, fields] of [
              [`/desk/tickets/${number}/triage`, { status: 'closed' }],
              [`/desk/tickets/${number}/replies`, { body: 'Injected reply.' }],
              [`/support/tickets/${number}/reply`, { body: 'Injected reply.' }],
            ] as const) {
              // The requester answers their own ticket by its page: that is no leak.
              if (caller.name === 'requester' && key === 'billing' && path.startsWith('/support/')) continue;
              const response = await caller.ui.post(path, fields);
              assert.ok(response.statusCode >= 300, `${caller.name}: POST ${path} answered ${response.statusCode}`);
              for (const word of EVERYTHING.filter((w) => !caller.sees.includes(w)))
                assert.ok(!response.body.includes(word), `${caller.name}: POST ${path} shows "${word}"`);
            }
            assert.deepEqual(
              await findTicket(db, 'desk', id),
              before,
              `${caller.name} changed ticket ${key} through a page`,
            );
          }
        }
      }
    });
  });
}
