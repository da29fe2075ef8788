import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { arrangeControls, IMPLEMENTED } from '../support/controls.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

async function arrange() {
  const a = await arrangeControls(api, world, { project: { control_workflow: { edit_approval: true, assessment_approval: true } } });
  await a.patch('sample-9001', IMPLEMENTED);
  const tasks = async (query = '') => (await api.request('GET', `/api/v1/projects/${a.p.id}/tasks${query}`, { token: a.token })).body;
  return { ...a, tasks };
}

describe('approval tasks', () => {
  it('opens an approval task related to the control when it enters approving_edit', async () => {
    const a = await arrange();
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    const { data, meta } = await a.tasks();
    expect(meta.total).toBe(1);
    expect(data[0]).toMatchObject({ kind: 'approval', status: 'open', related_control_id: a.idOf('sample-9001'), assignee_user_id: null });
  });

  it('closes the approval task with the decision', async () => {
    const a = await arrange();
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    await a.transition('sample-9001', { transition: 'approving_edit_to_editing', comment: 'Name the deputy.' });
    const { data } = await a.tasks();
    expect(data[0]).toMatchObject({ status: 'closed', closed_at: expect.any(String) });
    expect((await a.tasks('?filter[status]=open')).meta.total).toBe(0);
  });

  it('opens a new task for each entry into a decision state, approval of the assessment included', async () => {
    const a = await arrange();
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    await a.transition('sample-9001', { transition: 'approving_edit_to_ready_for_assessment', comment: 'Approved.' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', evidence_references: ['Interview 2026-11-20'] }, undefined, 'assessment');
    await a.transition('sample-9001', { transition: 'assessing_to_approving_assessment' });
    const { data } = await a.tasks();
    expect(data.map((t: { status: string; title: string }) => [t.status, t.title])).toEqual([
      ['closed', 'Decision needed: approving edit'],
      ['open', 'Decision needed: approving assessment'],
    ]);
  });

  it('refuses a claim of the approval task once the decision closed it, with the ETag read before (412)', async () => {
    const a = await arrange();
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    const taskId = (await a.tasks()).data[0].id;
    const read = await api.request('GET', `/api/v1/projects/${a.p.id}/tasks/${taskId}`, { token: a.token });
    await a.transition('sample-9001', { transition: 'approving_edit_to_editing', comment: 'Again.' });
    const res = await api.request('POST', `/api/v1/projects/${a.p.id}/tasks/${taskId}/claim`, {
      token: a.token,
      body: {},
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(res.status).toBe(412);
  });
});
