// Response schemas rewritten for fast-json-stringify mean what they meant: the same values give the
// same JSON, and unions other than the two rewritten forms are left to the validator.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { serializableSchema } from './response-schemas.js';

const Time = Type.String({ format: 'date-time' });
const Author = Type.Object({ id: Type.String(), username: Type.String() });
const Post = Type.Object({
  edited_at: Type.Union([Time, Type.Null()]),
  author: Type.Union([Type.Null(), Author], { description: 'Null once the member is gone.' }),
  kind: Type.Union([Type.Literal('reply'), Type.Literal('like')]),
  either: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Integer() })]),
  tags: Type.Array(Type.Union([Type.String(), Type.Null()])),
});

describe('serializable response schemas', () => {
  it('rewrites `[X, null]` into a type list and string constants into an enum, keeping siblings', () => {
    const schema = serializableSchema(Post) as { properties: Record<string, unknown> };
    assert.deepEqual(schema.properties.edited_at, { type: ['string', 'null'], format: 'date-time' });
    assert.deepEqual(schema.properties.author, {
      ...JSON.parse(JSON.stringify(Author)),
      type: ['object', 'null'],
      description: 'Null once the member is gone.',
    });
    assert.deepEqual(schema.properties.kind, { type: 'string', enum: ['reply', 'like'] });
    assert.ok('anyOf' in (schema.properties.either as object), 'a union of objects stays a union');
    assert.deepEqual((schema.properties.tags as { items: unknown }).items, { type: ['string', 'null'] });
  });

  it('writes the same JSON as the schema it came from', () => {
    const before = fastJson(Post as object);
    const after = fastJson(serializableSchema(Post) as object);
    const values = [
      { edited_at: null, author: null, kind: 'reply', either: { a: 'x' }, tags: [] },
      {
        edited_at: '2026-11-26T20:00:00.000Z',
        author: { id: 'm1', username: 'ann', extra: 1 },
        kind: 'like',
        either: { b: 2 },
        tags: ['a', null],
      },
    ];
    for (const value of values) assert.equal(after(value), before(value));
  });
});
