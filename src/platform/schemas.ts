import { Type, type Static, type TSchema } from 'typebox';
import { ALL_ERROR_CODES, ERROR_TYPES } from './errors.js';

/**
 * Shared, bounded schema primitives. Every string and array in a request schema has a maximum,
 * so no field can carry an unbounded payload past validation.
 */

export function Text(options: { max: number; min?: number; pattern?: string; description?: string }) {
  return Type.String({ maxLength: options.max, minLength: options.min ?? 0, ...(options.pattern ? { pattern: options.pattern } : {}), ...(options.description ? { description: options.description } : {}) });
}

/** A string enum with `type: string` (reads better in OpenAPI than a bare `enum`). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `type: [X, "null"]`: cheaper to serialise than anyOf. An enum lists null too, or the schema would refuse it. */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...rest, ...(rest.enum ? { enum: [...rest.enum, null] } : {}), type: [type, 'null'] });
}

/** Ids are written lower-case, as Prep emits them: one spelling per id, so both engines compare them alike. */
export const Uuid = Type.String({ format: 'uuid', maxLength: 36, pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const PersonName = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
/** Up to the last second of year 9999: milliseconds stay exact in a double and fit PostgreSQL's bigint. */
export const UNIX_SECONDS_MAX = 253_402_300_799;
export const UnixSeconds = Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description: 'Unix time in seconds' });
export const HttpsUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https://' });
export const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', maxLength: 7, description: '#RRGGBB' });
export const Slug = Type.String({ minLength: 1, maxLength: 80, pattern: '^[a-z0-9][a-z0-9-]*$' });

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

/** Query of every keyset list; a list with filters extends it with `ListQueryWith`. */
export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })),
    starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

export function ListQueryWith<P extends Record<string, TSchema>>(filters: P) {
  return Type.Object({ ...ListQuery.properties, ...filters }, { additionalProperties: false });
}

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  });
}

/** A list that also reports how many records match (the spec's coding test and submission lists). */
export function ListWithTotal<T extends TSchema>(item: T) {
  return Type.Object({ ...ListOf(item).properties, total_count: Type.Integer() });
}

export const Deleted = (object: string) =>
  Type.Object({ object: Type.Literal(object), id: Uuid, deleted: Type.Literal(true) });

/** The one error envelope, registered as a shared component. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      type: StringEnum(Object.keys(ERROR_TYPES) as (keyof typeof ERROR_TYPES)[]),
      code: StringEnum(ALL_ERROR_CODES),
      message: Type.String(),
      param: Nullable(Type.String()),
      request_id: Type.String(),
      doc_url: Type.String({ format: 'uri' }),
    }),
  },
  { $id: 'Error', description: 'Every error response has this shape; branch on error.code.' },
);
