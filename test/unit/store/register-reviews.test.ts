import { describe, expect, it } from 'vitest';
import type { StoredRegisterReview } from '../../../lib/domain/register-reviews.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { reviewWrites, toReview } from '../../../lib/store/register-reviews.js';
import { firstPut } from '../../support/writes.js';

const review: StoredRegisterReview = {
  id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N',
  project_id: 'P',
  definition_id: 'D',
  notes: null,
  reviewed_by: 'U',
  reviewed_at: '2026-01-01T00:00:00.000Z',
};

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
