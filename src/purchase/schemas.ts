import { Type, type Static } from 'typebox';
import { Email } from '../core/accounts/schemas.js';
import { SiteId, SiteKind, SitePlan } from '../core/sites/schemas.js';

const WorkspaceStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('canceled')]);

/** A plan name; unknown names are refused by the service with 422 `unknown_plan`, naming the plans. */
const PlanName = Type.String({ minLength: 1, maxLength: 40, description: 'One of the plans from GET /plans.' });

export const CreateWorkspaceBody = Type.Object(
  {
    site_id: SiteId,
    kind: SiteKind,
    plan: PlanName,
    owner_email: Email,
    owner_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type CreateWorkspaceBody = Static<typeof CreateWorkspaceBody>;

export const ChangePlanBody = Type.Object({ plan: PlanName }, { additionalProperties: false });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key and body answer the same result; another body 422.',
    }),
  ),
});

export const WorkspaceParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const WorkspaceOut = Type.Object({
  id: Type.String({ description: 'The workspace id, which is its site id.' }),
  site_id: Type.String(),
  kind: SiteKind,
  plan: SitePlan,
  status: WorkspaceStatus,
  owner_email: Type.Union([Type.String(), Type.Null()], {
    description:
      "The owner's address; while `owner_pending`, the address of the existing account the workspace is offered to; null once that account declined.",
  }),
  owner_pending: Type.Boolean({
    description:
      'True while the workspace is offered to an existing account that has not yet accepted it in the console; the site has no owner meanwhile.',
  }),
  url: Type.String({ description: 'Production origin of the site.' }),
  created_at: Type.String({ format: 'date-time' }),
  canceled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type WorkspaceOut = Static<typeof WorkspaceOut>;

/** The answer to provisioning: the workspace and what became of the owner's invitation. */
export const ProvisionedWorkspaceOut = Type.Object({
  ...WorkspaceOut.properties,
  invitation: Type.Union([Type.Literal('sent'), Type.Literal('offer_sent'), Type.Literal('not_sent_mail_disabled')], {
    description:
      '`sent`: the owner account is new and an invitation mail with a link to choose its password (valid 7 days, once) is on its way. ' +
      '`offer_sent`: an account with this address exists; it was mailed that the workspace is offered to it, and owns it only once it accepts in the console (`owner_pending` until then). ' +
      '`not_sent_mail_disabled`: this server sends no mail; a new owner cannot log in until an administrator helps, an existing account finds the offer in the console. ' +
      "A replayed Idempotency-Key answers the first call's value and sends nothing.",
  }),
});
export type ProvisionedWorkspaceOut = Static<typeof ProvisionedWorkspaceOut>;

export const PlanOut = Type.Object({
  id: SitePlan,
  features: Type.Array(Type.Object({ feature: Type.String(), description: Type.String() })),
});
export type PlanOut = Static<typeof PlanOut>;

export const AuditOut = Type.Object({
  id: Type.String(),
  credential_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The purchase key that made the call; null when it carried no valid key or was a console change.',
  }),
  account_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The platform administrator who made the change on the console admin pages; null for purchase API calls.',
  }),
  method: Type.String(),
  path: Type.String(),
  target: Type.Union([Type.String(), Type.Null()], { description: 'The workspace the call named.' }),
  status: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});
export type AuditOut = Static<typeof AuditOut>;
