import { describe, expect, it, vi } from 'vitest';

const ran = vi.hoisted(() => [] as string[]);
const part =
  (name: string, none: unknown = 0) =>
  async () => {
    ran.push(name);
    return none;
  };

vi.mock('../../../lib/jobs/population.js', () => ({ sweepStalledRuns: part('stalled runs', { requeued: 0, ended: 0 }) }));
vi.mock('../../../lib/jobs/recalculation.js', () => ({ sweepRecalculations: part('recalculations') }));
vi.mock('../../../lib/jobs/review-tasks.js', () => ({ sweepReviewTasks: part('review tasks') }));

const { sweep } = await import('../../../lib/jobs/sweep.js');

describe('sweep', () => {
  it('re-queues recalculations before it creates review tasks, so that a review backlog cannot hold them up', async () => {
    await sweep(new Date());
    expect(ran).toEqual(['stalled runs', 'recalculations', 'review tasks']);
  });
});
