import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { createRowWrites, type RowScope, toRow } from '../../../lib/store/registers.js';
import { buildRegisterRow } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';
import { collectionCounts } from '../../../lib/store/counters.js';
import { countersKey, rowCount, rowCountAttribute } from '../../../lib/store/registers.js';

const scope: RowScope = { owner: 'system', systemId: 'S' };
const row = buildRegisterRow({
  id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N',
  definition_id: 'D',
  organisation_id: 'O',
  system_id: 'S',
  data: { name: 'Backups', count: 3, offsite: true },
});

const stored = () => firstPut(createRowWrites(scope, { row, logicalKey: '["backups"]' }, () => new Error('taken')));

describe('stored register rows', () => {
  it('reads a row as written, with the logical key it claims', () => {
    expect(toRow(stored())).toEqual({ row, logicalKey: '["backups"]' });
  });

  it('reads a project row with its project', () => {
    const projectRow = { ...row, owner: 'project' as const, project_id: 'P' };
    const item = firstPut(createRowWrites({ owner: 'project', projectId: 'P' }, { row: projectRow, logicalKey: '[]' }, () => new Error('taken')));
    expect(toRow(item).row).toEqual(projectRow);
  });

  it('refuses a row with a null column value, naming its key', () => {
    const item = { ...stored(), data: { name: null } };
    expect(() => toRow(item)).toThrow(StoredItemInvalid);
    expect(() => toRow(item)).toThrow(/SYSTEM#S\|ROW#D#01JD3Q5Z8X6Y7W2V9T4S3R2P1N/);
  });

  it('refuses a row without its logical key', () => {
    const { logical_key: _key, ...item } = stored();
    expect(() => toRow(item)).toThrow(StoredItemInvalid);
  });
});

describe("a register's row count", () => {
  it("reads the count from the owner's counters, 0 for a register without rows", () => {
    const counts = collectionCounts({ ...countersKey(scope), [rowCountAttribute('D')]: 7, contacts: 2 });
    expect([rowCount(counts, 'D'), rowCount(counts, 'E')]).toEqual([7, 0]);
  });

  it('refuses a malformed row count, naming the key', () => {
    const read = () => collectionCounts({ ...countersKey(scope), [rowCountAttribute('D')]: '7' });
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('SYSTEM#S|COUNTERS');
  });
});
