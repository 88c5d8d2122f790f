import { describe, expect, it } from 'vitest';
import { BoundedMap, memoByText } from '../../src/platform/bounded-map.js';

describe('BoundedMap', () => {
  it('drops the entry set longest ago once full', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('setting a key again moves it to the back without growing', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...map.entries()]).toEqual([['a', 10], ['c', 3]]);
  });
});

describe('memoByText', () => {
  it('works a text out once and shares the result', () => {
    let calls = 0;
    const upper = memoByText((text) => { calls++; return { text: text.toUpperCase() }; }, 10);
    const first = upper('abc');
    expect(upper('abc')).toBe(first);
    expect(calls).toBe(1);
    expect(upper('abd').text).toBe('ABD');
    expect(calls).toBe(2);
  });

  it('keeps only the last `max` texts', () => {
    let calls = 0;
    const length = memoByText((text) => { calls++; return text.length; }, 2);
    for (const t of ['a', 'bb', 'ccc', 'a']) length(t);
    expect(calls).toBe(4); // 'a' was dropped when 'ccc' came
    length('ccc');
    expect(calls).toBe(4);
  });

  it('does not hold texts longer than maxChars', () => {
    let calls = 0;
    const length = memoByText((text) => { calls++; return text.length; }, 10, 5);
    length('123456');
    length('123456');
    expect(calls).toBe(2);
  });
});
