import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dependenciesOf, permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { fixtures, type Api } from '../support/api.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

const rows = (project: string, definition = IDS.riskRegister) => `/api/v1/projects/${project}/registers/${definition}/rows`;
const post = (path: string, body: unknown, token: string, key = newUlid()) => api.request('POST', path, { token, body, headers: { 'Idempotency-Key': key } });
const risk = (id: string, extra: Record<string, unknown> = {}) => ({ data: { risk_id: id, title: `Risk ${id}`, status: 'open', ...extra } });
const without = (...removed: Permission[]) =>
  permissionsOf('project').filter((p) => !removed.includes(p) && !dependenciesOf('project', p).some((d) => removed.includes(d)));

async function archive(project: string) {
  await ddb().send(
    new UpdateCommand({ TableName: tableName(), Key: keys.project(project), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }),
  );
}

async function project() {
  const id = (await world.populated()).id;
  return { id, token: await world.projectToken(id) };
}

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

describe('project register guards', () => {
  it('answers 412 for a stale If-Match before it validates the body', async () => {
    const p = await project();
    const created = await post(rows(p.id), risk('G-1'), p.token);
    const url = `${rows(p.id)}/${created.body.data.id}`;
    const etag = created.headers.get('etag')!;
    expect((await api.request('PATCH', url, { token: p.token, body: { data: { treatment: 'a' } }, headers: { 'If-Match': etag } })).status).toBe(200);
    const stale = await api.request('PATCH', url, { token: p.token, body: { data: { likelihood: 'often' } }, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
  });

  it('refuses the replay of a row create once the project is archived (403 project_archived)', async () => {
    const p = await project();
    const key = newUlid();
    expect((await post(rows(p.id), risk('G-2'), p.token, key)).status).toBe(201);
    await archive(p.id);
    const replayed = await post(rows(p.id), risk('G-2'), p.token, key);
    expect([replayed.status, replayed.body.code]).toEqual([403, 'project_archived']);
  });

  it('redacts a replayed row create for a credential that cannot read its contact column', async () => {
    const p = await project();
    const system = `/api/v1/organisations/${world.op.organisationId}/systems/${world.systemId}`;
    const contact = await api.request('POST', `${system}/contacts`, { token: world.op.org, body: { name: 'Ada' }, headers: { 'Idempotency-Key': newUlid() } });
    const key = newUlid();
    const first = await post(rows(p.id), risk('G-3', { risk_owner: contact.body.data.id }), p.token, key);
    expect(first.body.data.data.risk_owner).toBe(contact.body.data.id);
    await fixtures.grant(world.op.userId, { kind: 'project', id: p.id }, without('view-contacts'));
    const replayed = await post(rows(p.id), risk('G-3', { risk_owner: contact.body.data.id }), p.token, key);
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(replayed.body.data.data).not.toHaveProperty('risk_owner');
    expect(replayed.body.data.redacted_fields).toEqual(['risk_owner']);
    expect(replayed.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('hints writable false on the manifests of an archived project', async () => {
    const p = await project();
    await archive(p.id);
    const one = await api.request('GET', `/api/v1/projects/${p.id}/registers/${IDS.riskRegister}`, { token: p.token });
    expect(one.body.data.writable).toBe(false);
    const all = await api.request('GET', `/api/v1/projects/${p.id}/registers`, { token: p.token });
    expect(all.body.data.length).toBeGreaterThan(0);
    expect(all.body.data.every((d: { writable: boolean }) => !d.writable)).toBe(true);
  });
});
