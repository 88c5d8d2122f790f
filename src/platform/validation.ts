import { AjvCompiler } from '@fastify/ajv-compiler';
import { ApiError } from './errors.js';

/** Shared by every part of a request: unknown fields are refused (not stripped), defaults filled in, NaN and ±Infinity are not numbers. */
const AJV_OPTIONS = { removeAdditional: false, useDefaults: true, allErrors: false, strictNumbers: true } as const;

type ExternalSchemas = Parameters<ReturnType<typeof AjvCompiler>>[0];
interface ValidatorOptions { customOptions?: object; plugins?: unknown[] }
interface RouteDefinition { method: string; url: string; httpPart: string; schema?: unknown }

/**
 * Request validation with type coercion only where the transport forces strings. Query strings, path parameters
 * and headers arrive as text, so `limit=20` becomes 20 there; a JSON body already carries types, so `name: 123`
 * or `grace_seconds: null` is a 400 naming the field rather than a value silently converted.
 */
export function validatorFactory() {
  const pool = AjvCompiler();
  return (externalSchemas: ExternalSchemas, options: ValidatorOptions = {}) => {
    const withCoercion = (coerceTypes: false | 'array') =>
      pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...AJV_OPTIONS, coerceTypes } } as never);
    const body = withCoercion(false);
    const transport = withCoercion('array');
    return (route: RouteDefinition) => (route.httpPart === 'body' ? body(route as never) : transport(route as never));
  };
}

/**
 * What schema validation lets through but no engine can store: NUL inside a string (PostgreSQL's text refuses it),
 * an unpaired surrogate (not Unicode: it would be stored as U+FFFD) and a non-finite number coerced from a query or path value (ajv skips `minimum`/`maximum` for ±Infinity once it
 * has coerced "Infinity" or "1e400"). Runs after validation on every request; the walk is iterative, so a deeply
 * nested body cannot exhaust the stack.
 */
export function unstorableValue(parts: Array<[label: string, value: unknown]>): ApiError | null {
  // Each entry's path is built only for the error: a walk that finds nothing allocates no strings.
  interface At { value: unknown; parent: At | null; key: string | number }
  const pathOf = (at: At): string => {
    const chain: At[] = [];
    for (let a: At | null = at; a !== null; a = a.parent) chain.push(a);
    let path = '';
    for (let i = chain.length - 1; i >= 0; i--) {
      const key = chain[i]!.key;
      path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    }
    return path;
  };
  const stack: At[] = parts.map(([label, value]) => ({ value, parent: null, key: label }));
  while (stack.length > 0) {
    const at = stack.pop()!;
    const value = at.value;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) {
        const path = pathOf(at);
        return new ApiError('parameter_invalid', { param: path || null, message: `Invalid parameter ${path}: must not contain a NUL character.` });
      }
      // An unpaired surrogate is not text: stored, it would come back as U+FFFD, not as what was acknowledged.
      if (!value.isWellFormed()) {
        const path = pathOf(at);
        return new ApiError('parameter_invalid', { param: path || null, message: `Invalid parameter ${path}: must be valid Unicode (it holds an unpaired surrogate).` });
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        const path = pathOf(at);
        return new ApiError('parameter_invalid', { param: path || null, message: `Invalid parameter ${path}: must be a finite number.` });
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], parent: at, key: i });
    } else if (value && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        if (key.includes('\u0000')) return new ApiError('parameter_invalid', { param: null, message: 'A field name must not contain a NUL character.' });
        stack.push({ value: (value as Record<string, unknown>)[key], parent: at, key });
      }
    }
  }
  return null;
}
