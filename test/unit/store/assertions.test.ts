import { describe, expect, it } from 'vitest';
import type { StoredAssertion } from '../../../lib/domain/assertions.js';
import { assertionWrites, toAssertion } from '../../../lib/store/assertions.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';
import { buildAssertion } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';

const assertion = (status: StoredAssertion['status']) =>
  buildAssertion({ id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N', provider_id: 'P', release_id: 'R', control_id: 'ism-1691', status });
const index = keys.controlAssertion('ism-1691', 'P', 'R');
const kinds = (writes: ReturnType<typeof assertionWrites>) => writes.map((w) => w.kind);

describe('assertionWrites', () => {
  it('keys the assertion by its ULID in the provider partition', () => {
    const [put] = assertionWrites(assertion('pending'), undefined);
    expect(put).toMatchObject({ kind: 'put', item: { PK: 'PROVIDER#P', SK: 'ASSERTION#01JD3Q5Z8X6Y7W2V9T4S3R2P1N' } });
  });

  it('writes the control index item with a confirmed assertion', () => {
    const writes = assertionWrites(assertion('confirmed'), undefined);
    expect(writes).toContainEqual(expect.objectContaining({ kind: 'put', item: expect.objectContaining(index) }));
  });

  it('writes no index item for an assertion still pending', () => {
    expect(kinds(assertionWrites(assertion('pending'), undefined))).toEqual(['put', 'update']);
  });

  it('removes the index item when a confirmed assertion is rejected', () => {
    expect(assertionWrites(assertion('rejected'), assertion('confirmed'))).toContainEqual({ kind: 'delete', key: index });
  });

  it('counts a new assertion and a confirmation on the release', () => {
    const update = assertionWrites(assertion('confirmed'), undefined).find((w) => w.kind === 'update');
    expect(update).toMatchObject({ key: keys.assuranceRelease('P', 'R'), values: { ':a': 1, ':c': 1 } });
  });

  it('moves no count when a pending assertion is rewritten pending', () => {
    expect(kinds(assertionWrites(assertion('pending'), assertion('pending')))).toEqual(['put']);
  });
});

describe('stored assertions', () => {
  const stored = () => firstPut(assertionWrites(assertion('pending'), undefined));

  it('reads an assertion as written', () => {
    expect(toAssertion(stored())).toEqual(assertion('pending'));
  });

  it('refuses an assertion whose responsibility is not one of its values, naming its key', () => {
    const item = { ...stored(), responsibility: 'everyone' };
    expect(() => toAssertion(item)).toThrow(StoredItemInvalid);
    expect(() => toAssertion(item)).toThrow(/PROVIDER#P\|ASSERTION#01JD3Q5Z8X6Y7W2V9T4S3R2P1N/);
  });
});
