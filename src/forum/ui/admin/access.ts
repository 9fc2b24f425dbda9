// Who may use the admin area: the community's admins. Guests are sent to log in (401 on a GET
// becomes a redirect); moderators and members get a 403 page, never a 404 they could probe.
import type { FastifyRequest } from 'fastify';
import { authorizeAdmin } from '../../policy.js';
import { checkForm, loadUi } from '../context.js';

async function adminOnly(request: FastifyRequest): Promise<void> {
  authorizeAdmin(request.ui.viewer);
}

/** preHandlers of every admin page. */
export const ADMIN_PAGE = [loadUi, adminOnly];
/** preHandlers of every admin form post: the CSRF check comes after the role check. */
export const ADMIN_FORM = [loadUi, adminOnly, checkForm];
