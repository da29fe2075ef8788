import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { issueToken } from '../../lib/auth/issue.js';
import { transitionControl } from '../../lib/operations/controls/transitions.js';
import type { OperationContext } from '../../lib/operations/kernel/operation.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { getMany, keyString } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { arrangeControls, controlsUrl as url, IMPLEMENTED } from '../support/controls.js';
import { arrangeEvidence } from '../support/evidence.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeControls>[2]) => arrangeControls(api, world, options);

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
    expect(assessed).toMatchObject({
      workflow_state: 'assessed',
      evidence_snapshot: { versions: [], acknowledged_warnings: [] },
      last_transition: { id: 'assessing_to_assessed', comment: null },
    });
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
    expect((await move('approving_edit_to_editing', 'Name the deputy owner too.')).last_transition).toMatchObject({
      comment: 'Name the deputy owner too.',
      by: world.op.userId,
    });
    await move('editing_to_approving_edit');
    await move('approving_edit_to_ready_for_assessment', 'Approved.');
    await move('ready_for_assessment_to_assessing');
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', evidence_references: ['Interview 2026-11-20'] }, undefined, 'assessment');
    await move('assessing_to_approving_assessment');
    await move('approving_assessment_to_assessing', 'Cite the register too.');
    await move('assessing_to_approving_assessment');
    expect(await move('approving_assessment_to_assessed', 'Agreed.')).toMatchObject({ workflow_state: 'assessed', evidence_snapshot: { versions: [] } });
    const decisions = (await auditRecords(world.op.organisationId)).filter(
      (r) => r.kind === 'TRANSITION_CONTROL' && (r.target as { project: string }).project === a.p.id,
    );
    expect(decisions.map((r) => (r.details as { comment: string | null }).comment).filter(Boolean)).toEqual([
      'Name the deputy owner too.',
      'Approved.',
      'Cite the register too.',
      'Agreed.',
    ]);
  });

  it('needs an acknowledgement when evidence cannot be captured, and proceeds on the retry with the same ETag', async () => {
    const a = await arrangeEvidence(api, world);
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Seen in the register.' }, undefined, 'assessment');
    // One file still being scanned and one ready, as the upload pipeline leaves them.
    const items = [await a.upload('sample-9001', { file_status: 'quarantine' }), await a.upload('sample-9001', { version: 2, sha256: 'a'.repeat(64) })];
    const { etag } = await a.read('sample-9001');
    const path = url(a.p.id, `/${a.idOf('sample-9001')}/transitions`);
    const first = await api.request('POST', path, { token: a.token, headers: { 'If-Match': etag }, body: { transition: 'assessing_to_assessed' } });
    expect(first.status).toBe(409);
    expect(first.body.code).toBe('evidence_acknowledgement_required');
    const retry = await api.request('POST', path, {
      token: a.token,
      headers: { 'If-Match': etag },
      body: { transition: 'assessing_to_assessed', acknowledge_evidence_warnings: true },
    });
    expect(retry.status).toBe(200);
    expect(retry.body.data.evidence_snapshot).toMatchObject({ versions: [{ evidence_id: items[1]!.id, version: 2 }], acknowledged_warnings: [items[0]!.id] });
    const pinned = await getMany([keys.evidenceVersion(a.p.id, items[1]!.id, 2)]);
    expect([...pinned.values()]).toEqual([expect.objectContaining({ id: items[1]!.id, version: 2, sha256: 'a'.repeat(64) })]);
  });

  it('lets exactly one of two callers racing on the same ETag through', async () => {
    const a = await arrange();
    await a.patch('sample-9001', IMPLEMENTED);
    const { etag } = await a.read('sample-9001');
    const path = url(a.p.id, `/${a.idOf('sample-9001')}/transitions`);
    const other = await world.projectToken(a.p.id);
    const results = await Promise.all(
      [a.token, other].map((token) =>
        api.request('POST', path, { token, headers: { 'If-Match': etag }, body: { transition: 'editing_to_ready_for_assessment' } }),
      ),
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
      const issued = await issueToken(
        world.op.userId,
        { token_type: 'project', project_id: a.p.id, name: 'race', abilities: permissionsOf('project'), read_only: false },
        new Date(),
      );
      const control = a.idOf('sample-9001');
      const items = await getMany([keys.project(a.p.id), keys.control(a.p.id, control)]);
      const ctx: OperationContext = {
        requestId: newUlid(),
        now: new Date(),
        caller: {
          tokenId: issued.id,
          userId: world.op.userId,
          type: 'project',
          projectId: a.p.id,
          readOnly: false,
          permissions: new Set(permissionsOf('project')),
          superUser: false,
        },
        prefetched: (k) => items.get(keyString(k)),
        prefetchedCollection: () => [],
        ifMatch: etag,
        page: { number: 1, size: 50 },
      };
      const result = await transitionControl.handle(ctx, {
        params: { project: a.p.id, control },
        query: {},
        body: { transition: 'editing_to_ready_for_assessment' },
      });
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
