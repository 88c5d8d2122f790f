import fc from 'fast-check';

/** The JSON Schema subset the route schemas use (TypeBox output as published in the OpenAPI document). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** Strings that have broken parsers and databases before: non-finite numbers, NUL and other controls, overflows. */
export const HOSTILE_STRINGS = [
  'Infinity', '-Infinity', 'NaN', '1e400', '-1e400', '99999999999999999999', '-1', '0', '1.5', '0x10', '', ' ',
  '\u0000', 'a\u0000b', '\u0001\u001f\u007f', '\ud800', '%00', '%', '../../etc/passwd', "'; drop table candidates; --",
  'x'.repeat(5_000), '😀'.repeat(300), 'true', 'null', '[]', '{}',
];

/** Values of every JSON type that a field of another type must refuse (never coerce). */
export const WRONG_TYPES: unknown[] = [null, 0, -1, 1.5, 123, 1e308, -1e308, true, false, '', '123', 'Infinity', '\u0000', [], [null], {}, { a: 1 }];

const IDENT = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);

/** A value the schema accepts (patterns through fast-check's regex support, lengths kept small). */
export function validValue(schema: JsonSchema, ids: fc.Arbitrary<string> = fc.uuid().map((u) => u.toLowerCase())): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf ?? schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf)!.map((s) => validValue(s, ids)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((t) => (t === 'null' ? fc.constant(null) : validValue({ ...schema, type: t }, ids))));
  }
  switch (schema.type) {
    case 'string': return validString(schema, ids);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 0) + 1_000_000);
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, ids), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)) });
    case 'object': {
      const props = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validValue(s, ids)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) as never });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: JsonSchema, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 64, 64);
  const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Infinity);
  if (schema.format === 'uuid') return ids;
  if (schema.format === 'email') return IDENT.map((u) => `${u}@example.com`);
  if (schema.format === 'uri' || schema.format === 'url') return IDENT.map((p) => `https://example.com/${p}`);
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

/** Deeply nested arrays and objects, past any sane depth. */
export function deepValue(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A hostile stand-in for a value of `schema`: another type, a hostile string, a huge or deeply nested value. */
export function hostileValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...WRONG_TYPES),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constant('y'.repeat(300_000)),
    fc.constant(deepValue(2_000)),
    fc.array(fc.constant('z'), { minLength: 2_000, maxLength: 2_000 }),
    ...(schema.type === 'object' || schema.type === 'array' ? [] : [fc.constant([schema.type === 'string' ? 'a' : 1])]),
  );
}

/**
 * A request body for `schema`: valid, valid with one field replaced by a hostile value, valid plus an unknown field,
 * or something hostile in place of the whole body.
 */
export function bodyValue(schema: JsonSchema, ids: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const valid = validValue(schema, ids);
  const fields = Object.keys(schema.properties ?? {});
  const options: Array<fc.Arbitrary<unknown>> = [valid, hostileValue(schema)];
  if (fields.length > 0) {
    options.push(
      fc.tuple(valid, fc.constantFrom(...fields), fc.constant(null)).chain(([v, field]) =>
        hostileValue(schema.properties![field]!).map((bad) => ({ ...(v as object), [field]: bad }))),
      valid.map((v) => ({ ...(v as object), unknown_field: 'x' })),
    );
  }
  return fc.oneof(...options);
}

/** A query-string or path value: what the schema accepts, as text, or a hostile string. */
export function textValue(schema: JsonSchema, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    validValue(schema, ids).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
}

/** `node` with its `#/components/...` references (into `doc`, the OpenAPI document) inlined, so it compiles on its own. */
export function deref(doc: unknown, node: any, seen = new Set<string>()): any {
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    if (seen.has(node.$ref)) return {};
    const target = node.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc);
    return deref(doc, target, new Set([...seen, node.$ref]));
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(doc, v, seen)]));
}
