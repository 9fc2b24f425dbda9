import { Type, type Static } from 'typebox';
import { MAX_SETTING_LENGTH } from './allowlist.js';

export const SettingsMapIn = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.Union([Type.String({ maxLength: MAX_SETTING_LENGTH * 2 }), Type.Boolean(), Type.Integer()]),
  { description: 'The whole settings map: allowlisted names to env-file style values.' },
);
export type SettingsMapIn = Static<typeof SettingsMapIn>;

export const SettingsMapOut = Type.Record(Type.String(), Type.String(), {
  description: 'The desired settings map; secret values read back masked.',
});
export type SettingsMapOut = Static<typeof SettingsMapOut>;

export const RestartOut = Type.Object({
  site: Type.String(),
  generation: Type.Integer({ description: 'How many times settings have been applied.' }),
  applied_at: Type.String({ format: 'date-time' }),
  changed: Type.Array(
    Type.Object({
      name: Type.String(),
      change: Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('removed')]),
    }),
    { description: 'Settings whose applied value changed with this restart.' },
  ),
});
export type RestartOut = Static<typeof RestartOut>;
