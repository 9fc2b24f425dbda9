// Error codes of the Help desk API. Data only: src/http/errors.ts merges this table into the one
// typed map that AppError accepts.

export const helpdeskErrorCodes = {
  invalid_report: { status: 400, title: 'The report name, range, interval or grouping is not valid' },
  not_an_agent: { status: 403, title: 'The member is not an agent of this help desk' },
  category_not_served: { status: 403, title: "The agent does not serve this ticket's category" },
  ticket_not_found: { status: 404, title: 'Ticket not found' },
  helpdesk_category_not_found: { status: 404, title: 'Help desk category not found' },
  agent_not_found: { status: 404, title: 'Agent not found' },
  attachment_not_found: { status: 404, title: 'Attachment not found' },
  canned_reply_not_found: { status: 404, title: 'Canned reply not found' },
  canned_reply_exists: { status: 409, title: 'A canned reply with this name exists' },
  invalid_canned_reply: { status: 422, title: 'The canned reply is not valid' },
  helpdesk_category_exists: { status: 409, title: 'A help desk category with this name exists' },
  ticket_merged: { status: 409, title: 'The ticket was merged into another one' },
  merge_target_closed: { status: 409, title: 'Tickets cannot be merged into a closed ticket' },
  merge_into_itself: { status: 422, title: 'A ticket cannot be merged into itself' },
  invalid_ticket: { status: 422, title: 'The ticket or reply is not valid' },
  invalid_report_range: { status: 422, title: 'The report range is not valid' },
} as const satisfies Record<string, { status: number; title: string }>;
