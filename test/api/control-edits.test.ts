import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import type { Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { arrangeControls, controlsUrl as url, IMPLEMENTED, WITHOUT_ASSESSMENT } from '../support/controls.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeControls>[2]) => arrangeControls(api, world, options);

describe('updateControlImplementation', () => {
  it('merges the implementation fields and answers the new ETag', async () => {
    const { read, patch } = await arrange();
    const before = await read('sample-9001');
    const res = await patch('sample-9001', { ...IMPLEMENTED, implementation_summary: 'Named owners' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      ...IMPLEMENTED,
      implementation_summary: 'Named owners',
      assessment_preparation_readiness: { ready: true, missing: [] },
    });
    expect(res.headers.get('etag')).not.toBe(before.etag);
    const cleared = await patch('sample-9001', { implementation_summary: null });
    expect(cleared.body.data).toMatchObject({ ...IMPLEMENTED, implementation_summary: null });
  });

  it('writes an audit record with the change', async () => {
    const { p, patch } = await arrange();
    await patch('sample-9001', IMPLEMENTED);
    const records = (await auditRecords(world.op.organisationId)).filter(
      (r) => r.kind === 'UPDATE_CONTROL_IMPLEMENTATION' && (r.target as { project: string }).project === p.id,
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 200, details: { changed_fields: 'implementation_status,implementation_description' } });
  });

  it('records an explicit decision when applicability is supplied unchanged', async () => {
    const { patch } = await arrange();
    const res = await patch('sample-9001', { applicability: 'y' });
    expect(res.status).toBe(200);
    expect(res.body.data.applicability_context).toMatchObject({ origin: 'explicit_user_choice', decided_by: world.op.userId });
  });

  it('needs a rationale for an exclusion, and counts it in health', async () => {
    const { patch, health } = await arrange();
    const refused = await patch('sample-9001', { applicability: 'n' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/applicability_comment' })]);
    expect((await patch('sample-9001', { applicability: 'n', applicability_comment: '   ' })).status).toBe(422);
    expect((await patch('sample-9001', { applicability: 'n', applicability_comment: 'Ownership is inherited from the platform.' })).status).toBe(200);
    expect((await health()).applicability_summary).toMatchObject({ controls: SAMPLE_PROTECTED, applicable: SAMPLE_PROTECTED - 1, not_applicable: 1 });
  });

  it('needs a rationale to keep a choice that differs from the recommendation, and reports the conflict', async () => {
    const { patch, health } = await arrange({ scope: { wireless_networks: 'no' } });
    expect((await patch('sample-9008', { applicability: 'y' })).status).toBe(422);
    const kept = await patch('sample-9008', { applicability: 'y', applicability_comment: 'Wireless arrives this year.' });
    expect(kept.body.data.applicability_context).toMatchObject({ origin: 'explicit_user_choice', attention: 'conflict', recommendation: { value: 'n' } });
    const h = await health();
    expect(h.applicability_summary).toMatchObject({ conflicts: 1, applicable: SAMPLE_PROTECTED - 1 });
    expect(h.warnings.items.map((w: { code: string }) => w.code)).toContain('applicability_conflicts');
    expect((await patch('sample-9008', { applicability_comment: null })).status).toBe(422);
  });

  it('refuses ec, which only the server sets (422)', async () => {
    const { patch } = await arrange();
    const res = await patch('sample-9001', { implementation_status: 'ec' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/implementation_status');
  });

  it('refuses assessment conclusions: 403 without assessment authority, 422 with it', async () => {
    const without = await arrange({ abilities: WITHOUT_ASSESSMENT });
    const forbidden = await without.patch('sample-9001', { overall_assessed_outcome: 'effective' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('assessment_authority_required');
    const withAuthority = await arrange();
    const invalid = await withAuthority.patch('sample-9001', { overall_assessed_outcome: 'effective' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0].pointer).toBe('/overall_assessed_outcome');
  });

  it('takes proposed claims, with a maturity level only on Essential Eight controls', async () => {
    const { patch } = await arrange();
    const ok = await patch('sample-9013', {
      overall_proposed_outcome: 'effective',
      overall_proposed_rationale: 'Allow-listing is enforced.',
      maturity_proposed_level: 'ML2',
    });
    expect(ok.body.data).toMatchObject({ overall_proposed_outcome: 'effective', maturity_proposed_level: 'ML2' });
    expect((await patch('sample-9001', { maturity_proposed_level: 'ML1' })).status).toBe(422);
  });

  it('refuses a stale ETag (412) and an empty patch (422)', async () => {
    const { p, idOf, read, patch, token } = await arrange();
    const { etag } = await read('sample-9001');
    await patch('sample-9001', IMPLEMENTED);
    const stale = await api.request('PATCH', url(p.id, `/${idOf('sample-9001')}/implementation`), {
      token,
      headers: { 'If-Match': etag },
      body: { implementation_summary: 'x' },
      contentType: 'application/merge-patch+json',
    });
    expect(stale.status).toBe(412);
    expect((await patch('sample-9001', {})).status).toBe(422);
  });

  it('refuses edits outside the editing state (403)', async () => {
    const { patch, transition } = await arrange();
    await patch('sample-9001', IMPLEMENTED);
    expect((await transition('sample-9001', { transition: 'editing_to_ready_for_assessment' })).status).toBe(200);
    const res = await patch('sample-9001', { implementation_summary: 'late' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('workflow_state_forbids_edit');
  });

  it('refuses edits on an archived project (403)', async () => {
    const { p, patch } = await arrange();
    await ddb().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.project(p.id), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }),
    );
    const res = await patch('sample-9001', IMPLEMENTED);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });
});

describe('updateControlAssessment', () => {
  async function assessing() {
    const a = await arrange();
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    return a;
  }

  it('saves a draft assessment and reports the matrix completeness', async () => {
    const { patch } = await assessing();
    const res = await patch('sample-9001', { overall_assessed_outcome: 'ineffective', assessor_notes: 'Two owners unnamed.' }, undefined, 'assessment');
    expect(res.status).toBe(200);
    expect(res.body.data.assessment_matrix_completeness).toEqual({
      complete: false,
      missing: [expect.objectContaining({ pointer: '/overall_assessed_rationale' }), expect.objectContaining({ pointer: '/finding_severity' })],
    });
    const done = await patch('sample-9001', { finding_severity: 'medium', evidence_references: ['SSP section 2.1'] }, undefined, 'assessment');
    expect(done.body.data.assessment_matrix_completeness).toEqual({ complete: true, missing: [] });
  });

  it('refuses Common Control on a row that is not an SSP control row (422)', async () => {
    const a = await arrange();
    await a.patch('sample-principle-gov-01', { applicability: 'n', applicability_comment: 'Principles are not assessed here.' });
    await a.transition('sample-principle-gov-01', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-principle-gov-01', { transition: 'ready_for_assessment_to_assessing' });
    const res = await a.patch('sample-principle-gov-01', { overall_assessed_outcome: 'common_control' }, undefined, 'assessment');
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/overall_assessed_outcome');
  });

  it('refuses an assessment too large to store (422), and changes nothing', async () => {
    const { patch, read } = await assessing();
    const before = await read('sample-9001');
    const euros = (n: number) => '\u20ac'.repeat(n);
    const res = await patch(
      'sample-9001',
      { evidence_references: Array.from({ length: 100 }, () => euros(1000)), assessor_notes: euros(20_000), overall_assessed_rationale: euros(20_000) },
      undefined,
      'assessment',
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('control_too_large');
    expect((await read('sample-9001')).etag).toBe(before.etag);
  });

  it('refuses assessment edits outside the assessing state (403)', async () => {
    const { patch } = await arrange();
    const res = await patch('sample-9001', { assessor_notes: 'early' }, undefined, 'assessment');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('workflow_state_forbids_edit');
  });
});
