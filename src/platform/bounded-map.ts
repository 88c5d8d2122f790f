/**
 * A Map that holds at most `max` entries: setting a new key when full drops the entry set longest ago. Setting a key
 * again moves it to the back. For caches of results that are cheap to recompute but asked for again and again.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    if (this.size >= this.max) super.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * `fn`, a pure function of a text, with its results kept for the last `max` texts of at most `maxChars` characters
 * (a longer text is worked out each time rather than held). Results are shared between callers: never mutate one.
 */
export function memoByText<T>(fn: (text: string) => T, max: number, maxChars = 4000): (text: string) => T {
  const kept = new BoundedMap<string, T>(max);
  return (text) => {
    const hit = kept.get(text);
    if (hit !== undefined) return hit;
    const value = fn(text);
    if (text.length <= maxChars) kept.set(text, value);
    return value;
  };
}
