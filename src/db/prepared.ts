import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import type { Db } from './database.js';

const sentinel = (i: number) => `\u0001prep-arg-${i}\u0001`;

type Slot = { arg: number } | { value: unknown };

/**
 * A query that is built and compiled once per shape, then run with fresh parameter values.
 * Kysely builds and compiles every query anew, which costs more than running a small indexed query;
 * the hot reads (key lookup, list pages) use this instead, through `Db.read` (outside any transaction).
 * `build` must use each argument only as a bound value; an argument that is `undefined` selects another
 * shape (e.g. an optional filter left out).
 */
export function prepared<A extends unknown[], R>(db: Db, build: (...args: A) => Compilable<R>, options?: { cached?: boolean }) {
  const bind = compiledShapes(build);
  return async (...args: A): Promise<R[]> => db.read<R>(bind(args), options);
}

/**
 * The same, for a hot statement inside a transaction (a read under its lock, or a write): compiled once per
 * shape, run on the transaction it is given.
 */
export function preparedIn<A extends unknown[], R>(build: (...args: A) => Compilable<R>) {
  return runIn(compiledShapes(build));
}

/**
 * The same, for a hot statement run on its own (`run`, through Db.execute: at once on SQLite when no transaction holds
 * the connection) or in a transaction it is given (`in`).
 */
export function preparedStatement<A extends unknown[], R>(db: Db, build: (...args: A) => Compilable<R>) {
  const bind = compiledShapes(build);
  return { run: (...args: A): Promise<R[]> => db.execute<R>(bind(args)), in: runIn(bind) };
}

/** The same, compiled and bound but not run: for a step of `Db.executeAll`. */
export function preparedQuery<A extends unknown[], R>(build: (...args: A) => Compilable<R>) {
  const bind = compiledShapes(build);
  return (...args: A): CompiledQuery<R> => bind(args);
}

/** Runs the bound statement on the transaction it is given. */
function runIn<A extends unknown[], R>(bind: (args: A) => CompiledQuery<R>) {
  return async (tx: Kysely<any>, ...args: A): Promise<R[]> => (await tx.executeQuery<R>(bind(args))).rows;
}

/**
 * The compiled query of `build` for these arguments' shape, with their values bound. A shape is which arguments are
 * present and how many there are (a variadic `build`, such as a multi-row insert, compiles once per count).
 */
function compiledShapes<A extends unknown[], R>(build: (...args: A) => Compilable<R>) {
  const shapes = new Map<string | number, { compiled: CompiledQuery<R>; slots: Slot[] }>();
  return (args: A): CompiledQuery<R> => {
    // The count when every argument is present (the usual case): no string is built for it.
    const mask = args.includes(undefined) ? args.map((a) => (a === undefined ? '0' : '1')).join('') : args.length;
    let shape = shapes.get(mask);
    if (!shape) {
      const sentinels = args.map((a, i) => (a === undefined ? undefined : sentinel(i))) as A;
      const compiled = build(...sentinels).compile();
      const slots = compiled.parameters.map((p): Slot => {
        const i = (sentinels as unknown[]).indexOf(p);
        return i >= 0 ? { arg: i } : { value: p };
      });
      shape = { compiled, slots };
      shapes.set(mask, shape);
    }
    return { ...shape.compiled, parameters: shape.slots.map((s) => ('arg' in s ? args[s.arg] : s.value)) };
  };
}
