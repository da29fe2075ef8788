import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { permissionsOf, type Permission } from '../../lib/auth/permissions.js';
import type { Release } from '../../lib/catalogue/store.js';
import { issueToken } from '../../lib/auth/issue.js';
import { transitionControl } from '../../lib/operations/controls.js';
import type { OperationContext } from '../../lib/operations/operation.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { recountProject } from '../../lib/store/controls.js';
import { getMany, keyString } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { GENEROUS_BUDGETS, importSample, setupWorld } from '../support/projects.js';

let api: Api;
let world: Awaited<ReturnType<typeof setupWorld>>;
let release: Release;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  release = await importSample();
  world = await setupWorld(api, release);
});
afterAll(() => api.stop());

/** The sample catalogue's PROTECTED entries, in catalogue order. */
const SAMPLE_PROTECTED = 28;
const WITHOUT_ASSESSMENT: Permission[] = permissionsOf('project').filter((p) => !['view-control-assessment', 'edit-control-assessment', 'approve-assessments'].includes(p));

const url = (projectId: string, rest = '') => `/api/v1/projects/${projectId}/controls${rest}`;

/** A populated PROTECTED project, a credential on it, and helpers over its controls. */
async function arrange(options: { abilities?: Permission[]; project?: Record<string, unknown>; scope?: Record<string, unknown> } = {}) {
  let p;
  if (options.scope) {
    p = await world.project(options.project);
    const scope = await api.request('GET', `${p.url}/scope`, { token: world.op.org });
    await api.request('PATCH', `${p.url}/scope`, { token: world.op.org, headers: { 'If-Match': scope.headers.get('etag')! }, body: { data: options.scope } });
    const setup = await api.request('GET', p.url, { token: world.op.org });
    await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': setup.headers.get('etag')! }, body: {} });
    await api.drainJobs();
  } else {
    p = await world.populated(options.project);
  }
  const token = await world.projectToken(p.id, options.abilities);
  const list = await api.request('GET', url(p.id, '?page[size]=100'), { token: await world.projectToken(p.id) });
  const ids = new Map<string, string>(list.body.data.map((c: { catalogue_id: string; id: string }) => [c.catalogue_id, c.id]));
  const idOf = (catalogueId: string) => ids.get(catalogueId)!;
  const read = async (catalogueId: string, as = token) => {
    const res = await api.request('GET', url(p.id, `/${idOf(catalogueId)}`), { token: as });
    return { res, body: res.body.data, etag: res.headers.get('etag')! };
  };
  const patch = async (catalogueId: string, body: Record<string, unknown>, as = token, part = 'implementation') => {
    const { etag } = await read(catalogueId, as);
    return api.request('PATCH', url(p.id, `/${idOf(catalogueId)}/${part}`), { token: as, headers: { 'If-Match': etag }, body, contentType: 'application/merge-patch+json' });
  };
  const transition = async (catalogueId: string, body: Record<string, unknown>, as = token) => {
    const { etag } = await read(catalogueId, as);
    return api.request('POST', url(p.id, `/${idOf(catalogueId)}/transitions`), { token: as, headers: { 'If-Match': etag }, body });
  };
  const health = async () => (await api.request('GET', `/api/v1/projects/${p.id}/health`, { token: await world.projectToken(p.id) })).body.data;
  return { p, token, idOf, read, patch, transition, health };
}

const IMPLEMENTED = { implementation_status: 'implemented', implementation_description: 'Owners are named in the system security plan.' };

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
    expect(await ids('filter[essential_eight]=ML3')).toEqual(['sample-9013', 'sample-9014', 'sample-9015', 'sample-9016', 'sample-9017', 'sample-9018', 'sample-9020', 'sample-9021', 'sample-9022']);
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
    await api.request('PATCH', `${p.url}/scope`, { token: world.op.org, headers: { 'If-Match': scope.headers.get('etag')! }, body: { data: { wireless_networks: 'yes' } } });
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

  it('omits the assessment properties without view-control-assessment (absent, not null)', async () => {
    const { read } = await arrange({ abilities: WITHOUT_ASSESSMENT });
    const { body } = await read('sample-9001');
    for (const field of ['overall_assessed_outcome', 'overall_assessed_rationale', 'evidence_references', 'finding_severity', 'assessor_notes', 'maturity_assessed_level', 'assessment_matrix_completeness', 'evidence_snapshot']) {
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
    await api.request('PATCH', a.p.url, { token: world.op.org, headers: { 'If-Match': setup.headers.get('etag')! }, body: { control_workflow: { edit_approval: true } }, contentType: 'application/merge-patch+json' });
    const after = await a.read('sample-9001');
    expect(after.body.allowed_transitions.map((t: { id: string }) => t.id)).toEqual(['editing_to_approving_edit']);
    expect(after.etag).not.toBe(before.etag);
    const stale = await api.request('PATCH', url(a.p.id, `/${a.idOf('sample-9001')}/implementation`), { token: a.token, headers: { 'If-Match': before.etag }, body: IMPLEMENTED, contentType: 'application/merge-patch+json' });
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
    expect((await api.request('GET', url(p.id, `/${ulid()}`), { token })).status).toBe(404);
  });
});

describe('updateControlImplementation', () => {
  it('merges the implementation fields and answers the new ETag', async () => {
    const { read, patch } = await arrange();
    const before = await read('sample-9001');
    const res = await patch('sample-9001', { ...IMPLEMENTED, implementation_summary: 'Named owners' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ...IMPLEMENTED, implementation_summary: 'Named owners', assessment_preparation_readiness: { ready: true, missing: [] } });
    expect(res.headers.get('etag')).not.toBe(before.etag);
    const cleared = await patch('sample-9001', { implementation_summary: null });
    expect(cleared.body.data).toMatchObject({ ...IMPLEMENTED, implementation_summary: null });
  });

  it('writes an audit record with the change', async () => {
    const { p, patch } = await arrange();
    await patch('sample-9001', IMPLEMENTED);
    const records = (await auditRecords(world.op.organisationId)).filter((r) => r.kind === 'UPDATE_CONTROL_IMPLEMENTATION' && (r.target as { project: string }).project === p.id);
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
    const ok = await patch('sample-9013', { overall_proposed_outcome: 'effective', overall_proposed_rationale: 'Allow-listing is enforced.', maturity_proposed_level: 'ML2' });
    expect(ok.body.data).toMatchObject({ overall_proposed_outcome: 'effective', maturity_proposed_level: 'ML2' });
    expect((await patch('sample-9001', { maturity_proposed_level: 'ML1' })).status).toBe(422);
  });

  it('refuses a stale ETag (412) and an empty patch (422)', async () => {
    const { p, idOf, read, patch, token } = await arrange();
    const { etag } = await read('sample-9001');
    await patch('sample-9001', IMPLEMENTED);
    const stale = await api.request('PATCH', url(p.id, `/${idOf('sample-9001')}/implementation`), { token, headers: { 'If-Match': etag }, body: { implementation_summary: 'x' }, contentType: 'application/merge-patch+json' });
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
    await ddb().send(new UpdateCommand({ TableName: tableName(), Key: keys.project(p.id), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }));
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
    const res = await patch('sample-9001', { evidence_references: Array.from({ length: 100 }, () => euros(1000)), assessor_notes: euros(20_000), overall_assessed_rationale: euros(20_000) }, undefined, 'assessment');
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

describe('transitionControl', () => {
  it('names the missing prerequisites by pointer (transition_prerequisite_missing)', async () => {
    const { transition } = await arrange();
    const res = await transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('transition_prerequisite_missing');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/implementation_status', '/implementation_description']);
  });

  it('refuses a transition that is not advertised (transition_not_available)', async () => {
    const { transition } = await arrange();
    for (const id of ['assessing_to_assessed', 'editing_to_approving_edit', 'no_such_transition']) {
      const res = await transition('sample-9001', { transition: id });
      expect(res.status, id).toBe(403);
      expect(res.body.code).toBe('transition_not_available');
    }
  });

  it('refuses a transition the caller lacks the permission for (transition_not_available)', async () => {
    const a = await arrange({ project: { control_workflow: { edit_approval: true } } });
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    const implementer = await world.projectToken(a.p.id, ['view-controls', 'edit-control-implementation']);
    expect((await a.read('sample-9001', implementer)).body.allowed_transitions).toEqual([]);
    const res = await a.transition('sample-9001', { transition: 'approving_edit_to_ready_for_assessment', comment: 'Looks right.' }, implementer);
    expect(res.body.code).toBe('transition_not_available');
  });

  it('refuses a comment on a transition that takes none, and a blank one on a decision (422)', async () => {
    const a = await arrange({ project: { control_workflow: { edit_approval: true } } });
    await a.patch('sample-9001', IMPLEMENTED);
    const commented = await a.transition('sample-9001', { transition: 'editing_to_approving_edit', comment: 'please' });
    expect(commented.status).toBe(422);
    expect(commented.body.errors[0].pointer).toBe('/comment');
    await a.transition('sample-9001', { transition: 'editing_to_approving_edit' });
    for (const body of [{}, { comment: '  ' }]) {
      const res = await a.transition('sample-9001', { transition: 'approving_edit_to_ready_for_assessment', ...body });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].pointer).toBe('/comment');
    }
  });

  it('walks the default workflow from editing to assessed without approvals, and back to editing', async () => {
    const a = await arrange();
    const move = async (id: string, body: Record<string, unknown> = {}) => {
      const res = await a.transition('sample-9001', { transition: id, ...body });
      expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data;
    };
    await a.patch('sample-9001', IMPLEMENTED);
    expect((await move('editing_to_ready_for_assessment')).workflow_state).toBe('ready_for_assessment');
    expect((await move('ready_for_assessment_to_assessing')).allowed_transitions.map((t: { id: string }) => t.id)).toEqual(['assessing_to_assessed']);
    const incomplete = await a.transition('sample-9001', { transition: 'assessing_to_assessed' });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.code).toBe('assessment_matrix_incomplete');
    expect(incomplete.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/overall_assessed_outcome', '/overall_assessed_rationale']);
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Owners named and current.' }, undefined, 'assessment');
    const assessed = await move('assessing_to_assessed');
    expect(assessed).toMatchObject({ workflow_state: 'assessed', evidence_snapshot: { versions: [], acknowledged_warnings: [] }, last_transition: { id: 'assessing_to_assessed', comment: null } });
    expect((await move('assessed_to_editing')).workflow_state).toBe('editing');
    expect((await a.health()).workflow_summary).toMatchObject({ editing: SAMPLE_PROTECTED });
  });

  it('walks the default workflow with both approvals, recording each decision with its comment', async () => {
    const a = await arrange({ project: { control_workflow: { edit_approval: true, assessment_approval: true } } });
    const move = async (id: string, comment?: string) => {
      const res = await a.transition('sample-9001', { transition: id, ...(comment ? { comment } : {}) });
      expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data;
    };
    await a.patch('sample-9001', IMPLEMENTED);
    expect((await a.read('sample-9001')).body.allowed_transitions.map((t: { id: string }) => t.id)).toEqual(['editing_to_approving_edit']);
    await move('editing_to_approving_edit');
    expect((await move('approving_edit_to_editing', 'Name the deputy owner too.')).last_transition).toMatchObject({ comment: 'Name the deputy owner too.', by: world.op.userId });
    await move('editing_to_approving_edit');
    await move('approving_edit_to_ready_for_assessment', 'Approved.');
    await move('ready_for_assessment_to_assessing');
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', evidence_references: ['Interview 2026-11-20'] }, undefined, 'assessment');
    await move('assessing_to_approving_assessment');
    await move('approving_assessment_to_assessing', 'Cite the register too.');
    await move('assessing_to_approving_assessment');
    expect(await move('approving_assessment_to_assessed', 'Agreed.')).toMatchObject({ workflow_state: 'assessed', evidence_snapshot: { versions: [] } });
    const decisions = (await auditRecords(world.op.organisationId)).filter((r) => r.kind === 'TRANSITION_CONTROL' && (r.target as { project: string }).project === a.p.id);
    expect(decisions.map((r) => (r.details as { comment: string | null }).comment).filter(Boolean)).toEqual(['Name the deputy owner too.', 'Approved.', 'Cite the register too.', 'Agreed.']);
  });

  it('needs an acknowledgement when evidence cannot be captured, and proceeds on the retry with the same ETag', async () => {
    const a = await arrange();
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Seen in the register.' }, undefined, 'assessment');
    // As the evidence operations keep them on the control: one file still being scanned, one ready.
    const items = [
      { id: ulid(), kind: 'upload', title: 'Owner register', status: 'pending', version: 1, sha256: null },
      { id: ulid(), kind: 'upload', title: 'Role letter', status: 'ready', version: 2, sha256: 'a'.repeat(64) },
    ];
    await ddb().send(new UpdateCommand({ TableName: tableName(), Key: keys.control(a.p.id, a.idOf('sample-9001')), UpdateExpression: 'SET evidence_items = :e', ExpressionAttributeValues: { ':e': items } }));
    const { etag } = await a.read('sample-9001');
    const path = url(a.p.id, `/${a.idOf('sample-9001')}/transitions`);
    const first = await api.request('POST', path, { token: a.token, headers: { 'If-Match': etag }, body: { transition: 'assessing_to_assessed' } });
    expect(first.status).toBe(409);
    expect(first.body.code).toBe('evidence_acknowledgement_required');
    const retry = await api.request('POST', path, { token: a.token, headers: { 'If-Match': etag }, body: { transition: 'assessing_to_assessed', acknowledge_evidence_warnings: true } });
    expect(retry.status).toBe(200);
    expect(retry.body.data.evidence_snapshot).toMatchObject({ versions: [{ evidence_id: items[1]!.id, version: 2 }], acknowledged_warnings: [items[0]!.id] });
  });

  it('lets exactly one of two callers racing on the same ETag through', async () => {
    const a = await arrange();
    await a.patch('sample-9001', IMPLEMENTED);
    const { etag } = await a.read('sample-9001');
    const path = url(a.p.id, `/${a.idOf('sample-9001')}/transitions`);
    const other = await world.projectToken(a.p.id);
    const results = await Promise.all(
      [a.token, other].map((token) => api.request('POST', path, { token, headers: { 'If-Match': etag }, body: { transition: 'editing_to_ready_for_assessment' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    expect((await a.health()).workflow_summary).toMatchObject({ ready_for_assessment: 1, editing: SAMPLE_PROTECTED - 1 });
  });

  describe('rechecks authority in the write that changes the state', () => {
    /** Runs the transition's handler as the pipeline would, up to (not including) its commit. */
    async function prepared() {
      const a = await arrange();
      await a.patch('sample-9001', IMPLEMENTED);
      const { etag } = await a.read('sample-9001');
      const issued = await issueToken(world.op.userId, { token_type: 'project', project_id: a.p.id, name: 'race', abilities: permissionsOf('project'), read_only: false }, new Date());
      const control = a.idOf('sample-9001');
      const items = await getMany([keys.project(a.p.id), keys.control(a.p.id, control)]);
      const ctx: OperationContext = {
        requestId: ulid(),
        now: new Date(),
        caller: { tokenId: issued.id, userId: world.op.userId, type: 'project', projectId: a.p.id, readOnly: false, permissions: new Set(permissionsOf('project')), superUser: false },
        prefetched: (k) => items.get(keyString(k)),
        ifMatch: etag,
        page: { number: 1, size: 50 },
      };
      const result = await transitionControl.handle(ctx, { params: { project: a.p.id, control }, query: {}, body: { transition: 'editing_to_ready_for_assessment' } });
      return { a, issued, writes: result.writes! };
    }

    it('refuses it when the user loses the permission between the read and the write (403)', async () => {
      const { a, writes } = await prepared();
      await fixtures.grant(world.op.userId, { kind: 'project', id: a.p.id }, ['view-projects', 'view-controls']);
      await expect(commit(writes)).rejects.toMatchObject({ status: 403, code: 'permission_not_held' });
      expect((await a.read('sample-9001', await world.projectToken(a.p.id))).body.workflow_state).toBe('editing');
    });

    it('refuses it when the credential is revoked between the read and the write (401)', async () => {
      const { a, issued, writes } = await prepared();
      await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.token(issued.id) }));
      await expect(commit(writes)).rejects.toMatchObject({ status: 401 });
      expect((await a.read('sample-9001')).body.workflow_state).toBe('editing');
    });

    it('commits it while the authority still holds', async () => {
      const { a, writes } = await prepared();
      await commit(writes);
      expect((await a.read('sample-9001')).body.workflow_state).toBe('ready_for_assessment');
    });
  });
});
