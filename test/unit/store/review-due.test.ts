import { describe, expect, it } from 'vitest';
import { reviewDueKeys, reviewDueOf, type ReviewSubject } from '../../../lib/store/review-due.js';

const subject: ReviewSubject = {
  kind: 'register-row',
  projectId: '01JPROJECT0000000000000000',
  definitionId: '01M80NF4M4DPXJJH74P6B9M172',
  id: '01JROW00000000000000000000',
};

describe('review-due index keys', () => {
  it('carries no index key without a review_due date', () => {
    expect(reviewDueKeys(subject, null)).toEqual({});
  });

  it('orders the sort key by date first, so that one Query up to today finds what is due', () => {
    expect(reviewDueKeys(subject, '2026-01-31').GSI1SK! < reviewDueKeys(subject, '2026-02-01').GSI1SK!).toBe(true);
  });

  it('reads the subject and date back from the sort key', () => {
    expect(reviewDueOf(reviewDueKeys(subject, '2026-03-01').GSI1SK!)).toEqual({ reviewDue: '2026-03-01', subject });
  });

  it('refuses a sort key of another shape', () => {
    expect(reviewDueOf('2026-03-01#x#control#y#z')).toBeUndefined();
  });
});
