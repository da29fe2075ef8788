import type { WriteItem } from '../../lib/store/transact.js';

/** The item a list of writes puts first: what a store function stores for its entity. */
export function firstPut(writes: readonly WriteItem[]) {
  const [put] = writes;
  if (put?.kind !== 'put') throw new Error(`the first write is a ${put?.kind ?? 'nothing'}, not a put`);
  return put.item;
}
