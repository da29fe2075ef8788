import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import type { Api } from '../support/api.js';
import { DETECTION_SECONDS, MAX_REQUEUES } from '../../lib/queues/recovery.js';
import { takeJobs } from '../support/jobs.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

describe('population', () => {
  it('starts a run (202, run_id), which the job completes', async () => {
    const p = await world.project();
    const started = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(`${p.url}/population`);
    expect(started.body.data).toMatchObject({ status: 'running', run_id: expect.any(String), recovery_available: false });
    expect((await api.request('GET', p.url, { token: world.op.org })).body.data.lifecycle_state).toBe('initialising');

    await api.drainJobs();
    const done = await api.request('GET', `${p.url}/population`, { token: world.op.org });
    expect(done.body.data).toMatchObject({
      run_id: started.body.data.run_id,
      status: 'completed',
      progress: { planned: SAMPLE_PROTECTED, existing: 0, created: SAMPLE_PROTECTED },
    });
    expect((await api.request('GET', p.url, { token: world.op.org })).body.data.lifecycle_state).toBe('active');
  });

  it('cannot restart a completed run (409)', async () => {
    const p = await world.populated();
    const etag = (await api.request('GET', p.url, { token: world.op.org })).headers.get('etag')!;
    const res = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': etag }, body: {} });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('population_completed');
  });

  it('cannot restart an active run (409)', async () => {
    const p = await world.project();
    const started = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    const again = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': started.headers.get('etag')! }, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('population_active');
    await api.drainJobs();
  });

  it('answers 412 to an ETag from before the run changed', async () => {
    const p = await world.project();
    await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    const res = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    expect(res.status).toBe(412);
    await api.drainJobs();
  });

  it('accepts only an empty body', async () => {
    const p = await world.project();
    const res = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: { force: true } });
    expect(res.status).toBe(422);
  });

  it('refuses an archived project (403)', async () => {
    const p = await world.project();
    await ddb().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.project(p.id), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }),
    );
    const etag = (await api.request('GET', p.url, { token: world.op.org })).headers.get('etag')!;
    const res = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': etag }, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('fails the run when the starter loses access, and a recovery run with a new run_id completes it', async () => {
    const p = await world.project();
    const started = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    const { revokeAccess, grantAccess } = await import('../../lib/store/identity.js');
    const { permissionsOf } = await import('../../lib/domain/permissions.js');
    await revokeAccess(world.op.userId, { kind: 'organisation', id: world.op.organisationId });
    await api.drainJobs();
    await grantAccess(world.op.userId, { kind: 'organisation', id: world.op.organisationId }, permissionsOf('organisation'), new Date());

    const failed = await api.request('GET', `${p.url}/population`, { token: world.op.org });
    expect(failed.body.data).toMatchObject({ status: 'failed', error_code: 'authorisation_lost', recovery_available: true });
    expect((await api.request('GET', p.url, { token: world.op.org })).body.data.lifecycle_state).toBe('initialising');
    expect(
      (await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': started.headers.get('etag')! }, body: {} })).status,
    ).toBe(412);

    const current = (await api.request('GET', p.url, { token: world.op.org })).headers.get('etag')!;
    const recovery = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': current }, body: {} });
    expect(recovery.status).toBe(202);
    expect(recovery.body.data.run_id).not.toBe(started.body.data.run_id);
    await api.drainJobs();
    const done = await api.request('GET', `${p.url}/population`, { token: world.op.org });
    expect(done.body.data).toMatchObject({
      status: 'completed',
      previous_runs: [expect.objectContaining({ run_id: started.body.data.run_id, status: 'failed' })],
    });
  });

  it('queues again a run whose job was lost, and the run completes', async () => {
    const p = await world.project();
    const started = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    // The job went to the dead-letter queue: nothing will run it.
    await api.dispatchJobs();
    await takeJobs('populate');
    const { sweep } = await import('../../lib/jobs/sweep.js');
    expect((await sweep(new Date())).stalled_runs.requeued).toBe(0);
    expect((await sweep(new Date(Date.now() + DETECTION_SECONDS * 1000))).stalled_runs.requeued).toBeGreaterThanOrEqual(1);
    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/population`, { token: world.op.org })).body.data).toMatchObject({
      run_id: started.body.data.run_id,
      status: 'completed',
      progress: { created: SAMPLE_PROTECTED },
    });
  });

  it('ends a run whose every re-queued job was lost as abandoned, and lets a recovery run start', async () => {
    const p = await world.project();
    const started = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} });
    const { sweep } = await import('../../lib/jobs/sweep.js');
    let at = new Date();
    for (let i = 0; i < MAX_REQUEUES; i++) {
      // Each job went to the dead-letter queue: nothing will run it.
      await takeJobs('populate');
      at = new Date(at.getTime() + DETECTION_SECONDS * 1000);
      expect((await sweep(at)).stalled_runs.requeued).toBeGreaterThanOrEqual(1);
    }
    await takeJobs('populate');
    expect((await sweep(new Date(at.getTime() + DETECTION_SECONDS * 1000))).stalled_runs.ended).toBeGreaterThanOrEqual(1);
    const abandoned = await api.request('GET', `${p.url}/population`, { token: world.op.org });
    expect(abandoned.body.data).toMatchObject({
      run_id: started.body.data.run_id,
      status: 'failed',
      error_code: 'population_abandoned',
      recovery_available: true,
    });
    const shown = await api.request('GET', p.url, { token: world.op.org });
    expect(shown.body.data.population.status).toBe('failed');
    expect(shown.headers.get('etag')).not.toBe(started.headers.get('etag'));
    const recovery = await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': shown.headers.get('etag')! } });
    expect(recovery.status).toBe(202);
    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/population`, { token: world.op.org })).body.data).toMatchObject({
      status: 'completed',
      progress: { created: SAMPLE_PROTECTED },
    });
  });

  it('shows organisation credentials no control-level health', async () => {
    const p = await world.populated();
    const res = await api.request('GET', `${p.url}/health`, { token: world.op.org });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      lifecycle_state: 'active',
      population: { status: 'completed' },
      recalculation: { status: 'idle' },
      stale_recommendations: false,
    });
    expect(res.body.data).not.toHaveProperty('applicability_summary');
    expect(res.body.data.redacted_fields).toEqual(['applicability_summary', 'workflow_summary']);
  });

  it('counts applicable controls for a project credential with view-controls', async () => {
    const p = await world.populated();
    const token = await world.projectToken(p.id);
    const res = await api.request('GET', `/api/v1/projects/${p.id}/health`, { token });
    expect(res.body.data.applicability_summary).toMatchObject({ controls: SAMPLE_PROTECTED, applicable: SAMPLE_PROTECTED, not_applicable: 0 });
  });

  it('omits the counts for a project credential without view-controls', async () => {
    const p = await world.populated();
    const token = await world.projectToken(p.id, ['view-projects']);
    const res = await api.request('GET', `/api/v1/projects/${p.id}/health`, { token });
    expect(res.body.data).not.toHaveProperty('applicability_summary');
  });

  it('reports a scope change as a pending recalculation until the job runs, which follows the recommendation', async () => {
    const p = await world.populated();
    const scope = `${p.url}/scope`;
    const etag = (await api.request('GET', scope, { token: world.op.org })).headers.get('etag')!;
    expect(
      (await api.request('PATCH', scope, { token: world.op.org, headers: { 'If-Match': etag }, body: { data: { wireless_networks: 'no' } } })).status,
    ).toBe(200);
    const token = await world.projectToken(p.id);
    const pending = await api.request('GET', `/api/v1/projects/${p.id}/health`, { token });
    expect(pending.body.data).toMatchObject({ recalculation: { status: 'pending' }, stale_recommendations: true });

    await api.drainJobs();
    const after = await api.request('GET', `/api/v1/projects/${p.id}/health`, { token });
    expect(after.body.data).toMatchObject({ recalculation: { status: 'idle' }, stale_recommendations: false });
    // The sample's wireless section has two PROTECTED controls; both now follow the suggested exclusion.
    expect(after.body.data.applicability_summary).toMatchObject({ applicable: SAMPLE_PROTECTED - 2, not_applicable: 2 });
  });

  it('reports a system context change as pending for every project of the system', async () => {
    const p = await world.populated();
    const ctx = `/api/v1/organisations/${world.op.organisationId}/systems/${world.systemId}/context`;
    const etag = (await api.request('GET', ctx, { token: world.op.org })).headers.get('etag')!;
    const changed = await api.request('PATCH', ctx, { token: world.op.org, headers: { 'If-Match': etag }, body: { data: { internet_facing_services: 'no' } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status).toBe('pending');
    await api.drainJobs();
    const token = await world.projectToken(p.id);
    const after = await api.request('GET', `/api/v1/projects/${p.id}/health`, { token });
    expect(after.body.data.recalculation.status).toBe('idle');
    expect(after.body.data.applicability_summary.not_applicable).toBeGreaterThanOrEqual(1);
  });

  it('re-queues a recalculation whose job was lost, through the sweep', async () => {
    const p = await world.populated();
    const scope = `${p.url}/scope`;
    const etag = (await api.request('GET', scope, { token: world.op.org })).headers.get('etag')!;
    await api.request('PATCH', scope, { token: world.op.org, headers: { 'If-Match': etag }, body: { data: { email_services: 'no' } } });
    // The job is lost: dispatched, then taken off the queue unprocessed.
    await api.dispatchJobs();
    const { DeleteMessageCommand, ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const { sqs } = await import('../../lib/queues/sqs.js');
    const { queueUrl } = await import('../../lib/queues/queues.js');
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl('recalculate'), MaxNumberOfMessages: 10 }));
    for (const m of received.Messages ?? []) await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl('recalculate'), ReceiptHandle: m.ReceiptHandle! }));
    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status).toBe('pending');

    const { sweep } = await import('../../lib/jobs/sweep.js');
    expect((await sweep(new Date(Date.now() + 120_000))).requeued_recalculations).toBeGreaterThanOrEqual(1);
    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status).toBe('idle');
  });

  it('never overwrites an explicit choice, and reports the disagreement as one issue', async () => {
    const p = await world.populated();
    const { projectApplicability } = await import('../../lib/store/controls.js');
    const wireless = (await projectApplicability(p.id)).filter((c) => c.path[1] === 'Wireless networks');
    expect(wireless).toHaveLength(2);
    // An assessor kept the first wireless control applicable (the controls issue writes such choices through the API).
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.control(p.id, wireless[0]!.id),
        UpdateExpression: 'SET applicability_origin = :o, applicability_comment = :c ADD version :one',
        ExpressionAttributeValues: { ':o': 'explicit_user_choice', ':c': 'Guest Wi-Fi stays in scope', ':one': 1 },
      }),
    );
    const scope = `${p.url}/scope`;
    const etag = (await api.request('GET', scope, { token: world.op.org })).headers.get('etag')!;
    await api.request('PATCH', scope, { token: world.op.org, headers: { 'If-Match': etag }, body: { data: { wireless_networks: 'no' } } });
    await api.drainJobs();

    const after = new Map((await projectApplicability(p.id)).map((c) => [c.id, c]));
    expect(after.get(wireless[0]!.id)).toMatchObject({ applicability: 'y', applicability_origin: 'explicit_user_choice', recommendation: { value: 'n' } });
    expect(after.get(wireless[1]!.id)).toMatchObject({ applicability: 'n', applicability_origin: 'initial_recommendation' });
    const token = await world.projectToken(p.id);
    const health = (await api.request('GET', `/api/v1/projects/${p.id}/health`, { token })).body.data;
    expect(health.applicability_summary).toMatchObject({ conflicts: 1, suggested_exclusions: 0 });
    expect(health.warnings.items.map((w: { code: string }) => w.code)).toEqual(['applicability_conflicts']);
    expect(health.warnings.count).toBe(1);
  });

  it('stops a recalculation whose requester lost authority, and a later request by someone else restarts it', async () => {
    const p = await world.populated();
    const { fixtures } = await import('../support/api.js');
    const { permissionsOf } = await import('../../lib/domain/permissions.js');
    const { revokeAccess } = await import('../../lib/store/identity.js');
    const colleague = await fixtures.user();
    await fixtures.grant(colleague, { kind: 'organisation', id: world.op.organisationId }, permissionsOf('organisation'));
    const token = await fixtures.token(colleague, 'organisation', { organisationId: world.op.organisationId });
    const scope = `${p.url}/scope`;
    const etag = (await api.request('GET', scope, { token })).headers.get('etag')!;
    const saved = await api.request('PATCH', scope, { token, headers: { 'If-Match': etag }, body: { data: { mobile_devices: 'no' } } });
    await revokeAccess(colleague, { kind: 'organisation', id: world.op.organisationId });
    await api.drainJobs();

    const stopped = (await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data;
    expect(stopped).toMatchObject({ recalculation: { status: 'stopped' }, stale_recommendations: true });
    expect(stopped.warnings.items.map((w: { code: string }) => w.code)).toContain('recalculation_stopped');

    await api.request('PATCH', scope, {
      token: world.op.org,
      headers: { 'If-Match': saved.headers.get('etag')! },
      body: { data: { mobile_devices: 'no', email_services: 'no' } },
    });
    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data).toMatchObject({
      recalculation: { status: 'idle' },
      stale_recommendations: false,
    });
  });

  it('recalculates every project of the organisation when outsourced delivery changes', async () => {
    const p = await world.populated();
    const org = `/api/v1/organisations/${world.op.organisationId}`;
    const system = `${org}/systems/${world.systemId}/context`;
    const sysEtag = (await api.request('GET', system, { token: world.op.org })).headers.get('etag')!;
    await api.request('PATCH', system, { token: world.op.org, headers: { 'If-Match': sysEtag }, body: { data: { hosting_model: 'no' } } });
    await api.drainJobs();
    const orgEtag = (await api.request('GET', `${org}/context`, { token: world.op.org })).headers.get('etag')!;
    expect(
      (await api.request('PATCH', `${org}/context`, { token: world.op.org, headers: { 'If-Match': orgEtag }, body: { data: { outsourced_delivery: 'no' } } }))
        .status,
    ).toBe(200);
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status).toBe('pending');

    await api.drainJobs();
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status).toBe('idle');
    const { projectApplicability } = await import('../../lib/store/controls.js');
    const managed = (await projectApplicability(p.id)).filter((c) => c.path[1] === 'Managed services and cloud services');
    expect(managed.length).toBeGreaterThan(0);
    expect(managed.every((c) => c.applicability === 'n' && c.recommendation?.rules.includes('no-outsourcing'))).toBe(true);
  });
});
