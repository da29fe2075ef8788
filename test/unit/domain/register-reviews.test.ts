import { describe, expect, it } from 'vitest';
import { CreateRegisterReview, NOTES_MAX, reviewView } from '../../../lib/domain/register-reviews.js';
import { buildRegisterReview } from '../../support/factories.js';

describe('CreateRegisterReview', () => {
  it('reads an omitted note as null, like a null one', () => {
    expect([CreateRegisterReview().parse({}), CreateRegisterReview().parse({ notes: null })]).toEqual([{ notes: null }, { notes: null }]);
  });

  it(`refuses notes over ${NOTES_MAX} characters and unknown properties`, () => {
    expect(CreateRegisterReview().safeParse({ notes: 'n'.repeat(NOTES_MAX + 1) }).success).toBe(false);
    expect(CreateRegisterReview().safeParse({ rows: [] }).success).toBe(false);
  });
});

describe('reviewView', () => {
  it('shows the review without its project', () => {
    const stored = buildRegisterReview();
    const { project_id: _project, ...view } = stored;
    expect(reviewView(stored)).toEqual(view);
  });
});
