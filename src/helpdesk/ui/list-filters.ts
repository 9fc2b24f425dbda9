// The inbox lists' filters as the filter form and saved views carry them: the parameters of the
// API's ticket list (schemas.ts TicketListQuery), each a bounded string. A view's own filters come
// first and the form's override them one by one; the list service checks the values.
import { AppError } from '../../http/errors.js';
import { TICKET_SORTS, type TicketListQuery } from '../schemas.js';

const FILTER_NAMES = [
  'q',
  'status',
  'priority',
  'category',
  'assignee',
  'requester',
  'tag',
  'sla',
  'created_after',
  'created_before',
  'sort',
] as const;
type FilterName = (typeof FILTER_NAMES)[number];
export type ListFilters = Partial<Record<FilterName, string>>;

const MAX_LENGTH: Record<FilterName, number> = {
  q: 200,
  status: 100,
  priority: 100,
  category: 100,
  assignee: 100,
  requester: 254,
  tag: 50,
  sla: 20,
  created_after: 40,
  created_before: 40,
  sort: 30,
};

/** The filters of a querystring or a saved view: known names with a non-empty value, trimmed. */
export function filtersOf(source: Record<string, unknown>): ListFilters {
  const filters: ListFilters = {};
  for (const name of FILTER_NAMES) {
    const value = source[name];
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed === '') continue;
    if (trimmed.length > MAX_LENGTH[name])
      throw new AppError('invalid_filter', `The ${name} filter is longer than ${MAX_LENGTH[name]} characters.`, {
        parameter: name,
      });
    filters[name] = trimmed;
  }
  return filters;
}

/** The list query of a view's filters with the form's over them, checked where the schema would check it. */
export function listQueryOf(base: ListFilters, filters: ListFilters): TicketListQuery {
  const merged: ListFilters = { ...base, ...filters };
  const sort = merged.sort;
  if (sort !== undefined && !(TICKET_SORTS as readonly string[]).includes(sort.replace(/^-/, '')))
    throw new AppError('invalid_filter', `Unknown order "${sort}".`, { parameter: 'sort' });
  const sla = merged.sla;
  if (sla !== undefined && sla !== 'breached' && sla !== 'at_risk')
    throw new AppError('invalid_filter', `Unknown SLA state "${sla}"; use breached or at_risk.`, { parameter: 'sla' });
  return { ...merged, sla } as TicketListQuery;
}
