import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { recountProject } from '../../lib/store/controls.js';
import { keys } from '../../lib/store/keys.js';
import { fixtures, type Api } from '../support/api.js';
import { arrangeControls, controlsUrl as url, IMPLEMENTED, WITHOUT_ASSESSMENT } from '../support/controls.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';
import type { Release } from '../../lib/catalogue/store.js';
import { releaseEntries } from '../../lib/store/catalogue-entries.js';
import { getOne } from '../../lib/store/read.js';

let api: Api;
let world: World;

let release: Release;

beforeAll(async () => ({ api, world, release } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeControls>[2]) => arrangeControls(api, world, options);

describe('listControls', () => {
  it('pages the controls in catalogue order with the total', async () => {
    const { p, token } = await arrange();
    const all = await api.request('GET', url(p.id, '?page[size]=100'), { token });
    expect(all.status).toBe(200);
    expect(all.body.meta).toMatchObject({ total: SAMPLE_PROTECTED, current_page: 1, page_size: 100 });
    const order = all.body.data.map((c: { catalogue_id: string }) => c.catalogue_id);
    expect(order.slice(0, 4)).toEqual(['sample-principle-gov-01', 'sample-principle-pro-01', 'sample-principle-det-01', 'sample-9001']);
    const third = await api.request('GET', url(p.id, '?page[size]=10&page[number]=3'), { token });
    expect(third.body.data.map((c: { catalogue_id: string }) => c.catalogue_id)).toEqual(order.slice(20, 28));
    expect(third.body.meta.total).toBe(SAMPLE_PROTECTED);
  });

  it('answers an empty page past the end with the total', async () => {
    const { p, token } = await arrange();
    const res = await api.request('GET', url(p.id, '?page[number]=9'), { token });
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.total).toBe(SAMPLE_PROTECTED);
  });

  it('filters by Essential Eight level, applicability, implementation status and text', async () => {
    const { p, token, patch } = await arrange();
    expect((await patch('sample-9013', IMPLEMENTED)).status).toBe(200);
    const ids = async (q: string) => {
      const res = await api.request('GET', url(p.id, `?page[size]=100&${q}`), { token });
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(res.body.data.length);
      return res.body.data.map((c: { catalogue_id: string }) => c.catalogue_id);
    };
    expect(await ids('filter[essential_eight]=ML3')).toEqual([
      'sample-9013',
      'sample-9014',
      'sample-9015',
      'sample-9016',
      'sample-9017',
      'sample-9018',
      'sample-9020',
      'sample-9021',
      'sample-9022',
    ]);
    expect(await ids('filter[implementation_status]=implemented')).toEqual(['sample-9013']);
    expect(await ids('filter[implementation_status]=not_set')).toHaveLength(SAMPLE_PROTECTED - 1);
    expect(await ids('filter[q]=SAMPLE-902')).toEqual(['sample-9020', 'sample-9021', 'sample-9022', 'sample-9023', 'sample-9024', 'sample-9025']);
    expect(await ids('filter[applicability]=n')).toEqual([]);
    expect(await ids('filter[essential_eight]=ML1&filter[implementation_status]=implemented')).toEqual(['sample-9013']);
  });

  it('pages a filtered list and keeps its total', async () => {
    const { p, token } = await arrange();
    const res = await api.request('GET', url(p.id, '?filter[workflow_state]=editing&page[size]=5&page[number]=2'), { token });
    expect(res.body.data).toHaveLength(5);
    expect(res.body.meta.total).toBe(SAMPLE_PROTECTED);
  });

  it('filters the applicability attention: conflicts', async () => {
    const { p, token, patch } = await arrange({ scope: { wireless_networks: 'no' } });
    expect((await patch('sample-9008', { applicability: 'y', applicability_comment: 'Guest wireless is planned for next quarter.' })).status).toBe(200);
    const res = await api.request('GET', url(p.id, '?filter[applicability_attention]=conflicts'), { token });
    expect(res.body.data.map((c: { catalogue_id: string }) => c.catalogue_id)).toEqual(['sample-9008']);
    expect(res.body.data[0].applicability_attention).toBe('conflict');
  });

  it('filters the applicability attention: suggested exclusions', async () => {
    const { p, token, idOf } = await arrange({ scope: { wireless_networks: 'no' } });
    // A value from before origins were recorded keeps its applicability; the recommendation still suggests excluding it.
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.control(p.id, idOf('sample-9009')),
        UpdateExpression: 'SET applicability = :y, applicability_origin = :o',
        ExpressionAttributeValues: { ':y': 'y', ':o': 'unknown_historical_provenance' },
      }),
    );
    // The recount that every recalculation pass (and the operator CLI) runs indexes values written outside the API.
    await recountProject(p.id, new Date());
    const res = await api.request('GET', url(p.id, '?filter[applicability_attention]=suggested_exclusions'), { token });
    expect(res.body.data.map((c: { catalogue_id: string }) => c.catalogue_id)).toEqual(['sample-9009']);
  });

  it('drops a control from the attention filter once a recalculation resolves its conflict', async () => {
    const { p, token, patch } = await arrange({ scope: { wireless_networks: 'no' } });
    await patch('sample-9008', { applicability: 'y', applicability_comment: 'Guest wireless is planned.' });
    const before = await api.request('GET', url(p.id, '?filter[applicability_attention]=conflicts'), { token });
    expect(before.body.meta.total).toBe(1);
    const scope = await api.request('GET', `${p.url}/scope`, { token: world.op.org });
    await api.request('PATCH', `${p.url}/scope`, {
      token: world.op.org,
      headers: { 'If-Match': scope.headers.get('etag')! },
      body: { data: { wireless_networks: 'yes' } },
    });
    await api.drainJobs();
    const res = await api.request('GET', url(p.id, '?filter[applicability_attention]=conflicts'), { token });
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.total).toBe(0);
  });

  it('refuses an unknown filter value (422)', async () => {
    const { p, token } = await arrange();
    for (const q of ['filter[workflow_state]=finished', 'filter[applicability_attention]=all', 'filter[colour]=red']) {
      const res = await api.request('GET', url(p.id, `?${q}`), { token });
      expect(res.status, q).toBe(422);
    }
  });
});

describe('getControl', () => {
  it('reads the implementation, applicability context, readiness and what this caller may do, with an ETag', async () => {
    const { read } = await arrange();
    const { res, body, etag } = await read('sample-9001');
    expect(res.status).toBe(200);
    expect(etag).toMatch(/^"1-[0-9a-f]{20}"$/);
    expect(body).toMatchObject({
      catalogue_id: 'sample-9001',
      kind: 'control',
      applicability: 'y',
      applicability_context: { origin: 'default_inclusion', recommendation: null, attention: null },
      implementation_status: null,
      workflow_state: 'editing',
      allowed_actions: ['updateControlImplementation', 'transitionControl'],
      allowed_transitions: [{ id: 'editing_to_ready_for_assessment', to_state: 'ready_for_assessment', comment: 'rejected' }],
      provider_guidance: [],
      evidence_items: [],
      assessment_preparation_readiness: { ready: false, missing: [{ pointer: '/implementation_status' }, { pointer: '/implementation_description' }] },
      assessment_matrix_completeness: { complete: false },
      redacted_fields: [],
    });
  });

  it("answers with its catalogue entry's statement and classifications, which the control item does not copy", async () => {
    const { p, read, idOf } = await arrange();
    const entry = (await releaseEntries(release.id)).find((e) => e.id === 'sample-9001')!;
    expect((await read('sample-9001')).body).toMatchObject({ statement: entry.statement, classifications: entry.classifications });
    const stored = await getOne(keys.control(p.id, idOf('sample-9001')));
    expect(stored).not.toHaveProperty('statement');
    expect(stored).not.toHaveProperty('classifications');
  });

  it('omits the assessment properties without view-control-assessment (absent, not null)', async () => {
    const { read } = await arrange({ abilities: WITHOUT_ASSESSMENT });
    const { body } = await read('sample-9001');
    for (const field of [
      'overall_assessed_outcome',
      'overall_assessed_rationale',
      'evidence_references',
      'finding_severity',
      'assessor_notes',
      'maturity_assessed_level',
      'assessment_matrix_completeness',
      'evidence_snapshot',
    ]) {
      expect(body).not.toHaveProperty(field);
      expect(body.redacted_fields).toContain(field);
    }
  });

  it('omits them when the user no longer holds view-control-assessment, though the credential selected it', async () => {
    const { p, read, token } = await arrange();
    await fixtures.grant(world.op.userId, { kind: 'project', id: p.id }, WITHOUT_ASSESSMENT);
    const { body } = await read('sample-9001', token);
    expect(body).not.toHaveProperty('overall_assessed_outcome');
  });

  it('hides the decision of an assessment transition from readers without the assessment view', async () => {
    const a = await arrange({ project: { control_workflow: { assessment_approval: true } } });
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Seen.' }, undefined, 'assessment');
    await a.transition('sample-9001', { transition: 'assessing_to_approving_assessment' });
    await a.transition('sample-9001', { transition: 'approving_assessment_to_assessing', comment: 'The severity should be high.' });
    const implementer = await world.projectToken(a.p.id, WITHOUT_ASSESSMENT);
    const { body } = await a.read('sample-9001', implementer);
    expect(body).not.toHaveProperty('last_transition');
    expect(body.redacted_fields).toContain('last_transition');
    expect((await a.read('sample-9001')).body.last_transition).toMatchObject({ comment: 'The severity should be high.' });
  });

  it('changes the ETag when what the caller may do changes, and refuses the old one (412)', async () => {
    const a = await arrange();
    const before = await a.read('sample-9001');
    const setup = await api.request('GET', a.p.url, { token: world.op.org });
    await api.request('PATCH', a.p.url, {
      token: world.op.org,
      headers: { 'If-Match': setup.headers.get('etag')! },
      body: { control_workflow: { edit_approval: true } },
      contentType: 'application/merge-patch+json',
    });
    const after = await a.read('sample-9001');
    expect(after.body.allowed_transitions.map((t: { id: string }) => t.id)).toEqual(['editing_to_approving_edit']);
    expect(after.etag).not.toBe(before.etag);
    const stale = await api.request('PATCH', url(a.p.id, `/${a.idOf('sample-9001')}/implementation`), {
      token: a.token,
      headers: { 'If-Match': before.etag },
      body: IMPLEMENTED,
      contentType: 'application/merge-patch+json',
    });
    expect(stale.status).toBe(412);
  });

  it('offers no actions to a read-only credential', async () => {
    const { p, read } = await arrange();
    const readOnly = await fixtures.token(world.op.userId, 'project', { projectId: p.id, abilities: permissionsOf('project'), readOnly: true });
    const { body } = await read('sample-9001', readOnly);
    expect(body.allowed_actions).toEqual([]);
    expect(body.allowed_transitions).toEqual([]);
  });

  it('answers 404 for a control of another project', async () => {
    const { p, token } = await arrange();
    const other = await arrange();
    const res = await api.request('GET', url(p.id, `/${other.idOf('sample-9001')}`), { token });
    expect(res.status).toBe(404);
    expect((await api.request('GET', url(p.id, `/${newUlid()}`), { token })).status).toBe(404);
  });
});
