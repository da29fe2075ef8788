import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { reviewWrites, toReview } from '../../../lib/store/register-reviews.js';
import { buildRegisterReview } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';
import { keys } from '../../../lib/store/keys.js';
import { reviewCount, reviewCountAttribute } from '../../../lib/store/register-reviews.js';

const review = buildRegisterReview({ project_id: 'P', definition_id: 'D' });

const stored = () => firstPut(reviewWrites(review));

describe('stored register reviews', () => {
  it('reads a review as written', () => {
    expect(toReview(stored())).toEqual(review);
  });

  it('refuses a review without its reviewer, naming its key', () => {
    const { reviewed_by: _by, ...item } = stored();
    expect(() => toReview(item)).toThrow(StoredItemInvalid);
    expect(() => toReview(item)).toThrow(/PROJECT#P\|REVIEW#D#/);
  });
});

describe("a register's review count", () => {
  const counters = keys.projectCounters('P');

  it("reads the count from the project's counters, 0 before the first review", () => {
    expect(reviewCount({ ...counters, [reviewCountAttribute('D')]: 2 }, 'D')).toBe(2);
    expect(reviewCount({ ...counters, [reviewCountAttribute('D')]: 2 }, 'E')).toBe(0);
  });

  it('refuses a malformed review count, naming the key', () => {
    const read = () => reviewCount({ ...counters, [reviewCountAttribute('D')]: -1 }, 'D');
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('PROJECT#P|COUNTERS');
  });
});
