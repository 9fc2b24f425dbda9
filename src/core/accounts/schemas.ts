import { Type, type Static } from 'typebox';

const Username = Type.String({
  pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}$',
  description: '2 to 39 letters, digits, `_`, `.` or `-`.',
});
export const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 10, maxLength: 200, description: 'At least 10 characters.' });

export const SignupBody = Type.Object(
  { username: Username, email: Email, password: Password },
  { additionalProperties: false },
);
export type SignupBody = Static<typeof SignupBody>;

export const LoginBody = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or e-mail address.' }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const UserOut = Type.Object({
  id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  is_admin: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});
export type UserOut = Static<typeof UserOut>;
