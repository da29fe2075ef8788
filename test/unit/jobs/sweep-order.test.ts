import { describe, expect, it, vi } from 'vitest';

const ran = vi.hoisted(() => [] as string[]);
const part = (name: string) => async () => {
  ran.push(name);
  return 0;
};

vi.mock('../../../lib/jobs/population.js', () => ({ sweepAbandonedRuns: part('abandoned runs') }));
vi.mock('../../../lib/jobs/recalculation.js', () => ({ sweepRecalculations: part('recalculations') }));
vi.mock('../../../lib/jobs/review-tasks.js', () => ({ sweepReviewTasks: part('review tasks') }));

const { sweep } = await import('../../../lib/jobs/sweep.js');

describe('sweep', () => {
  it('re-queues recalculations before it creates review tasks, so that a review backlog cannot hold them up', async () => {
    await sweep(new Date());
    expect(ran).toEqual(['abandoned runs', 'recalculations', 'review tasks']);
  });
});
