import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { fixtures, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;
let projectId: string;
let token: string;

const reviews = (definition: string = IDS.riskRegister, project = projectId) => `/api/v1/projects/${project}/registers/${definition}/reviews`;
const review = (options: { body?: unknown; key?: string; as?: string; definition?: string; project?: string } = {}) =>
  api.request('POST', reviews(options.definition, options.project), {
    token: options.as ?? token,
    body: options.body,
    headers: { 'Idempotency-Key': options.key ?? newUlid() },
  });
const list = (query = '', as = token, definition: string = IDS.riskRegister, project = projectId) =>
  api.request('GET', `${reviews(definition, project)}${query}`, { token: as });

async function archive(project: string) {
  await ddb().send(
    new UpdateCommand({ TableName: tableName(), Key: keys.project(project), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }),
  );
}

/** A project of its own, so that a test's reviews are the only ones listed. */
async function freshProject() {
  const id = (await world.project()).id;
  return { id, as: await world.projectToken(id) };
}

beforeAll(async () => {
  ({ api, world } = await startProjectWorld());
  projectId = (await world.project()).id;
  token = await world.projectToken(projectId);
});
afterAll(() => api.stop());

describe('createRegisterReview', () => {
  it('records a review without a body as notes null, by the caller, now', async () => {
    const before = Date.now();
    const res = await review();
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    expect(res.body.data).toMatchObject({ definition_id: IDS.riskRegister, notes: null, reviewed_by: world.op.userId });
    expect(Date.parse(res.body.data.reviewed_at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('takes a zero-length body sent as JSON as notes null', async () => {
    const res = await api.request('POST', reviews(), { token, rawBody: '', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() } });
    expect([res.status, res.body.data.notes]).toEqual([201, null]);
  });

  it('takes an empty object as notes null and keeps notes as sent', async () => {
    expect((await review({ body: {} })).body.data.notes).toBeNull();
    expect((await review({ body: { notes: 'Risks checked\nwith the owner.' } })).body.data.notes).toBe('Risks checked\nwith the owner.');
  });

  it('writes an audit record of kind REGISTER_REVIEWED', async () => {
    const res = await review({ body: { notes: 'Checked' } });
    const audit = (await auditRecords(world.op.organisationId)).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(audit).toMatchObject({ kind: 'REGISTER_REVIEWED', target: { project: projectId, definition: IDS.riskRegister, review: res.body.data.id } });
  });

  it('refuses notes over 5,000 characters and control characters (422)', async () => {
    for (const notes of ['x'.repeat(5001), 'bell\u0007']) {
      const res = await review({ body: { notes } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].pointer).toBe('/notes');
    }
  });

  it('refuses unknown members (422) and a body that is not JSON (400)', async () => {
    expect((await review({ body: { notes: null, approved: true } })).status).toBe(422);
    const malformed = await api.request('POST', reviews(), {
      token,
      rawBody: '{',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() },
    });
    expect(malformed.status).toBe(400);
  });

  it('replays the same key, treating omitted notes and null alike, and refuses it with other notes (409)', async () => {
    const key = newUlid();
    const first = await review({ key });
    const again = await review({ key, body: { notes: null } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await review({ key, body: { notes: 'other' } })).status).toBe(409);
  });

  it('reviews a register the system shares with the project', async () => {
    expect((await review({ definition: IDS.assetRegister })).status).toBe(201);
  });

  it('answers 404 for the generated control summary and for an unknown definition', async () => {
    for (const definition of [IDS.controlSummary, newUlid()]) {
      expect((await review({ definition })).status).toBe(404);
      expect((await list('', token, definition)).status).toBe(404);
    }
  });

  it('answers 403 without manage-registers', async () => {
    const reader = await world.projectToken(projectId, ['view-registers']);
    expect((await review({ as: reader })).status).toBe(403);
  });

  it('refuses an archived project (403 project_archived), on a replay too', async () => {
    const { id, as } = await freshProject();
    const key = newUlid();
    expect((await review({ project: id, as, key })).status).toBe(201);
    await archive(id);
    const replayed = await review({ project: id, as, key });
    expect([replayed.status, replayed.body.code]).toEqual([403, 'project_archived']);
    expect((await review({ project: id, as })).body.code).toBe('project_archived');
  });

  it('checks authority again on a replay (403 once manage-registers is no longer held)', async () => {
    const { id, as } = await freshProject();
    const key = newUlid();
    expect((await review({ project: id, as, key })).status).toBe(201);
    await fixtures.grant(
      world.op.userId,
      { kind: 'project', id },
      permissionsOf('project').filter((p) => p !== 'manage-registers'),
    );
    expect((await review({ project: id, as, key })).status).toBe(403);
  });
});

describe('listRegisterReviews', () => {
  it('lists newest reviewed time first, then by ID, with an exact total', async () => {
    const { id, as } = await freshProject();
    const made: { id: string; reviewed_at: string }[] = [];
    for (let i = 0; i < 3; i++) made.push((await review({ project: id, as, body: { notes: `n${i}` } })).body.data);
    const expected = [...made].sort((a, b) => b.reviewed_at.localeCompare(a.reviewed_at) || a.id.localeCompare(b.id)).map((r) => r.id);
    const first = await list('?page[size]=2', as, IDS.riskRegister, id);
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({ total: 3, current_page: 1, page_size: 2 });
    const second = await list('?page[size]=2&page[number]=2', as, IDS.riskRegister, id);
    expect([...first.body.data, ...second.body.data].map((r: { id: string }) => r.id)).toEqual(expected);
  });

  it("keeps each register's reviews and counts apart", async () => {
    const { id, as } = await freshProject();
    await review({ project: id, as, definition: IDS.poam });
    const risks = await list('', as, IDS.riskRegister, id);
    expect([risks.body.data, risks.body.meta.total]).toEqual([[], 0]);
    expect((await list('', as, IDS.poam, id)).body.meta.total).toBe(1);
  });

  it('answers 403 without view-registers and 404 for another project', async () => {
    expect((await list('', await world.projectToken(projectId, ['view-controls']))).status).toBe(403);
    expect((await list('', token, IDS.riskRegister, newUlid())).status).toBe(404);
  });
});
