import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { reviewWrites, toReview } from '../../../lib/store/register-reviews.js';
import { buildRegisterReview } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';

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
