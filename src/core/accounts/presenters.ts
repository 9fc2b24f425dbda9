import type { UserOut } from './schemas.js';
import type { UserRow } from './tables.js';

export function presentUser(user: UserRow): UserOut {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    is_admin: user.isAdmin,
    created_at: user.createdAt.toISOString(),
  };
}
