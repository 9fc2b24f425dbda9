// Error codes of the community instance (forum API and waitlist). Data only: src/http/errors.ts
// merges this table into the one typed map that AppError accepts.

export const forumErrorCodes = {
  member_banned: { status: 403, title: 'The member is banned from this community' },
  email_unconfirmed: { status: 403, title: 'The member has not confirmed its e-mail address' },
  forum_locked: { status: 403, title: 'The forum is locked' },
  own_post_like: { status: 403, title: 'Members cannot like their own posts' },
  own_post_flag: { status: 403, title: 'Members cannot flag their own posts' },
  topic_locked: { status: 403, title: 'The topic is locked' },
  category_not_found: { status: 404, title: 'Category not found' },
  forum_not_found: { status: 404, title: 'Forum not found' },
  topic_not_found: { status: 404, title: 'Topic not found' },
  post_not_found: { status: 404, title: 'Post not found' },
  member_not_found: { status: 404, title: 'Member not found' },
  flag_not_found: { status: 404, title: 'Flag not found' },
  already_flagged: { status: 409, title: 'You have flagged this post already' },
  flag_resolved: { status: 409, title: 'The flag is resolved already' },
  slug_taken: { status: 409, title: 'The slug is taken' },
  last_admin: { status: 409, title: 'The last admin of a community cannot lose admin powers' },
  owner_member: { status: 409, title: "The site owner's membership follows the site" },
  invalid_title: { status: 422, title: 'The title is blank' },
  invalid_body: { status: 422, title: 'The body is empty' },
  parent_not_in_topic: { status: 422, title: 'The parent post is not in this topic' },
  thread_too_deep: { status: 422, title: 'Replies nest too deep' },
  invalid_email: { status: 422, title: 'The e-mail address is not valid' },
  mail_disabled: { status: 503, title: 'This server sends no mail' },
} as const satisfies Record<string, { status: number; title: string }>;
