// The help desk's data at bench size, seeded with SQL in a few statements: contacts, categories,
// agents (away: their open tickets are the reports' data), tickets over `days` with every status,
// priority and SLA state and a product in their subject, their messages and history. bench/helpdesk.ts and the plan snapshots
// (test/sql-plans.test.ts) read the same shape.
import type pg from 'pg';

export interface HelpdeskSeed {
  site: string;
  tickets: number;
  agents: number;
  categories: number;
  entriesPerTicket: number;
  days: number;
  /** The SQL for "now": `now()`, or a fixed time where plans and answers must not move. */
  now: string;
}

/**
 * Each subject names one of this many products (`product0` ...), so a search for one matches one
 * ticket in this many, as a search for an order or a product does on a real desk.
 */
export const PRODUCTS = 500;

export async function seedHelpdesk(client: pg.Client, seed: HelpdeskSeed): Promise<void> {
  const { site, tickets } = seed;
  const statuses = `(array['new','open','pending','on_hold','solved','closed'])[1 + n % 6]`;
  const opened = `${seed.now} - ((n % ${seed.days * 24 * 60}) || ' minutes')::interval`;
  const assignee = `case when n % 5 <> 0 then 'agent' || (1 + n % ${seed.agents}) end`;
  await client.query(
    `insert into helpdesk_contacts (id, site_id, email, name)
     select 'c' || n, $1, 'customer' || n || '@example.test', 'Customer ' || n from generate_series(1, ${tickets / 10}) n`,
    [site],
  );
  await client.query(
    `insert into helpdesk_categories (id, site_id, name)
     select 'cat' || n, $1, 'Category ' || n from generate_series(1, ${seed.categories}) n`,
    [site],
  );
  await client.query(
    `insert into forum_members (id, site_id, username, email)
     select 'agent' || n, $1, 'agent' || n, 'agent' || n || '@bench.test' from generate_series(1, ${seed.agents}) n`,
    [site],
  );
  // Away: their thousands of open tickets are the reports' data, and inbound mail opens tickets
  // without assigning them, as before the agents were seeded.
  await client.query(
    `insert into helpdesk_agents (member_id, site_id, available)
     select 'agent' || n, $1, false from generate_series(1, ${seed.agents}) n`,
    [site],
  );
  // Every ninth ticket has no category, every fifth no agent; the agent's reply two minutes in
  // is the first response; pending and on-hold tickets (n % 6 = 2, 3) have their clocks stopped.
  await client.query(
    `insert into helpdesk_tickets (id, site_id, number, subject, status, priority, category_id, assignee_id,
            requester_id, channel, created_at, updated_at, solved_at, first_response_at, first_response_minutes,
            resolution_minutes, first_response_due_at, resolution_due_at, sla_paused_at)
     select 't' || n, $1, n, 'Ticket ' || n || ' about product' || (n % ${PRODUCTS}), ${statuses}, (array['low','normal','high','urgent'])[1 + n % 4],
            case when n % 9 <> 0 then 'cat' || (n % 9) end, ${assignee}, 'c' || (1 + n % ${tickets / 10}), 'email',
            ${opened}, ${opened} + interval '1 hour', case when n % 6 = 4 then ${opened} + interval '2 hours' end,
            ${opened} + interval '2 minutes', 480, 4320, ${opened} + interval '8 hours', ${opened} + interval '3 days',
            case when n % 6 in (2, 3) then ${opened} + interval '1 hour' end
     from generate_series(1, ${tickets}) n`,
    [site],
  );
  await client.query(`insert into helpdesk_counters (site_id, last_number) values ($1, ${tickets})`, [site]);
  await client.query(
    `insert into helpdesk_entries (id, site_id, ticket_id, author_kind, body_source, body_html, body_text, created_at)
     select 'e' || n || '-' || k, $1, 't' || n, case when k % 2 = 0 then 'agent' else 'requester' end,
            'Message ' || k, '<p>Message ' || k || '</p>', 'Message ' || k, ${opened} + (k || ' minutes')::interval
     from generate_series(1, ${tickets}) n, generate_series(1, ${seed.entriesPerTicket}) k`,
    [site],
  );
  await client.query(
    `insert into helpdesk_history (site_id, ticket_id, actor_kind, actor_id, event, to_value, created_at)
     select $1, 't' || n, 'system', null, 'created', jsonb_build_object('number', n), ${opened}
     from generate_series(1, ${tickets}) n
     union all
     select $1, 't' || n, 'system', null, 'assignee', to_jsonb(${assignee}), ${opened}
     from generate_series(1, ${tickets}) n where n % 5 <> 0
     union all
     select $1, 't' || n, case when k = 1 then 'requester' when n % 5 = 0 then 'api_key' else 'member' end,
            case when k = 2 then ${assignee} end, 'reply', null, ${opened} + (k || ' minutes')::interval
     from generate_series(1, ${tickets}) n, generate_series(1, 2) k
     union all
     select $1, 't' || n, case when n % 5 = 0 then 'api_key' else 'member' end, ${assignee}, 'status',
            '"solved"'::jsonb, ${opened} + interval '2 hours'
     from generate_series(1, ${tickets}) n where n % 6 = 4`,
    [site],
  );
}
