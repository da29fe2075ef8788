import { beforeAll, describe, expect, it } from 'vitest';
import { monotonicUlids, newUlid } from '../../lib/domain/ids.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { traceDdb } from '../../lib/store/client.js';
import { collectionCounts } from '../../lib/store/counters.js';
import { getOne } from '../../lib/store/read.js';
import { backfillRowOrder, countersKey, createRowWrites, rowCountAttribute, rowsPage, type RowScope } from '../../lib/store/registers.js';
import { commit, type WriteItem } from '../../lib/store/transact.js';
import { addToCounter } from '../../lib/store/versioned.js';
import { buildRegisterRow } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

const nextId = monotonicUlids();
const definitionId = IDS.assetRegister;
/** Rows with long text columns, as real registers have: the cost of reading one grows with it. */
const NOTES = 'n'.repeat(3000);

/** The writes of a create before order items existed: the row, its claim and its count. */
const legacyWrites = (scope: RowScope, writes: WriteItem[]): WriteItem[] =>
  writes.flatMap((w) => {
    if (w.kind === 'put' && String(w.item.SK).startsWith('ROWORDER#')) return [];
    return w.kind === 'update' ? [addToCounter(countersKey(scope), rowCountAttribute(definitionId), 1)] : [w];
  });

/** Creates rows oldest first; `legacy` ones are written as before order items existed. */
async function created(scope: RowScope, count: number, legacy = false): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = buildRegisterRow({
      id: nextId(),
      definition_id: definitionId,
      system_id: scope.owner === 'system' ? scope.systemId : null,
      data: { asset_tag: `A-${ids.length}-${newUlid()}`, name: 'Asset', notes: NOTES },
    });
    const writes = createRowWrites(scope, { row, logicalKey: row.data.asset_tag as string }, () => new Error('key taken'));
    await commit(legacy ? legacyWrites(scope, writes) : writes);
    ids.push(row.id);
  }
  return ids;
}

const page = async (scope: RowScope, number: number, size: number) => {
  const { result, calls } = await traceDdb(async () => rowsPage(scope, definitionId, { number, size }, collectionCounts(await getOne(countersKey(scope)))));
  return { ids: result.map((r) => r.row.id), queries: calls.filter((c) => c.command === 'Query'), rcu: calls.reduce((n, c) => n + c.rcu, 0) };
};

const systemScope = (): RowScope => ({ owner: 'system', systemId: newUlid() });

describe('register row pages', () => {
  it('reads a deep page from the order items, then its own rows only, at a fraction of the read units', async () => {
    const scope = systemScope();
    const ids = await created(scope, 200);
    const deep = await page(scope, 4, 50);
    expect(deep.ids).toEqual(ids.slice(150, 200));
    expect(deep.queries).toHaveLength(2);
    const unordered = { [rowCountAttribute(definitionId)]: 200 };
    const { calls } = await traceDdb(() => rowsPage(scope, definitionId, { number: 4, size: 50 }, unordered));
    const everyRowBefore = calls.reduce((n, c) => n + c.rcu, 0);
    console.info(`page 4 of 50 over 200 rows of 3 KB: ${deep.rcu} RCU (counters read included), ${everyRowBefore} RCU reading every row before it`);
    expect(deep.rcu).toBeLessThan(everyRowBefore / 2);
  });

  it('pages every row once across pages', async () => {
    const scope = systemScope();
    const ids = await created(scope, 7);
    const pages = await Promise.all([1, 2, 3].map((n) => page(scope, n, 3)));
    expect(pages.map((p) => p.ids)).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
  });

  it('answers no rows past the last page', async () => {
    const scope = systemScope();
    await created(scope, 4);
    expect((await page(scope, 3, 2)).ids).toEqual([]);
    expect((await page(scope, 9, 2)).ids).toEqual([]);
  });

  it('reads every row before the page while some rows lack their order item', async () => {
    const scope = systemScope();
    const ids = [...(await created(scope, 5, true)), ...(await created(scope, 5))];
    const deep = await page(scope, 2, 4);
    expect(deep.ids).toEqual(ids.slice(4, 8));
    expect(deep.queries).toHaveLength(1);
  });
});

describe('backfillRowOrder', () => {
  it('writes the missing order items once, after which deep pages take the order items', async () => {
    const scope = systemScope();
    const ids = [...(await created(scope, 5, true)), ...(await created(scope, 3))];
    expect(await backfillRowOrder(scope, definitionId)).toBe(5);
    expect(await backfillRowOrder(scope, definitionId)).toBe(0);
    expect(await getOne(countersKey(scope))).toMatchObject({ [`register_rows_${definitionId}`]: 8, [`register_row_orders_${definitionId}`]: 8 });
    const deep = await page(scope, 2, 3);
    expect(deep.ids).toEqual(ids.slice(3, 6));
    expect(deep.queries).toHaveLength(2);
  });
});
