import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { LIBRARY_DEFINITION_IDS as IDS, LIBRARY_DEFINITIONS } from '../../lib/domain/library-definitions.js';
import { queryAll } from '../../lib/store/read.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { itemPath, libraryWorld, listPath } from '../support/library.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let world: ReturnType<typeof libraryWorld>;

// Generous budgets, except the credential read budget, which the 429 test spends on a token of its own.
const READS_PER_CREDENTIAL = 40;

beforeAll(async () => {
  api = await startApi({ ...GENEROUS_BUDGETS, API_READ_RATE_LIMIT_PER_MINUTE: String(READS_PER_CREDENTIAL) });
  op = await fixtures.operator();
  world = libraryWorld(api, op);
});
afterAll(() => api.stop());

describe('listLibrary', () => {
  it('lists every definition in catalogue order with empty working copies', async () => {
    const p = await world.project();
    const res = await api.request('GET', listPath(p.id), { token: p.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { key: string }) => d.key)).toEqual(LIBRARY_DEFINITIONS.map((d) => d.key));
    expect(res.body.data[0]).toEqual({
      ...LIBRARY_DEFINITIONS[0],
      content_bytes: 0,
      owner_user_id: null,
      classification: null,
      date_live: null,
      review_due: null,
      updated_at: null,
      updated_by: null,
    });
  });

  it('never creates placeholder records', async () => {
    const p = await world.project();
    await api.request('GET', listPath(p.id), { token: p.token });
    await api.request('GET', itemPath(p.id), { token: p.token });
    const stored = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': `PROJECT#${p.id}`, ':sk': 'LIBRARY#' },
    });
    expect(stored).toEqual([]);
  });

  it('summarises a written working copy without its content', async () => {
    const p = await world.fresh(IDS.continuityPlan);
    await world.patch(p.path, p.token, p.etag, { content_markdown: 'Résumé', classification: 'OS' });
    const res = await api.request('GET', listPath(p.id), { token: p.token });
    const entry = res.body.data.find((d: { id: string }) => d.id === IDS.continuityPlan);
    expect(entry).toMatchObject({ content_bytes: 8, classification: 'OS', updated_by: op.userId });
    expect(entry).not.toHaveProperty('content_markdown');
  });

  it('answers 422 for an unknown query parameter', async () => {
    const p = await world.project();
    expect((await api.request('GET', `${listPath(p.id)}?page[size]=5`, { token: p.token })).status).toBe(422);
  });
});

describe('getLibraryItem', () => {
  it('answers the definition with an empty working copy and an ETag before any edit', async () => {
    const p = await world.project();
    const res = await api.request('GET', itemPath(p.id, IDS.sspAnnex), { token: p.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"0-[0-9a-f]{20}"$/);
    expect(res.body.data).toMatchObject({ id: IDS.sspAnnex, key: 'ssp-annex', kind: 'policy', content_markdown: null, owner_user_id: null });
  });

  it('answers 404 for a ULID that names no definition', async () => {
    const p = await world.project();
    expect((await api.request('GET', itemPath(p.id, newUlid()), { token: p.token })).status).toBe(404);
  });

  it('answers 422 for a definition that is not a ULID', async () => {
    const p = await world.project();
    const res = await api.request('GET', itemPath(p.id, 'information-security-policy'), { token: p.token });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/path/definition');
  });

  it('answers 404 for another project than the credential is bound to', async () => {
    const p = await world.project();
    const other = await world.project();
    expect((await api.request('GET', itemPath(other.id), { token: p.token })).status).toBe(404);
  });

  it('answers 401 without a credential', async () => {
    const p = await world.project();
    expect((await api.request('GET', itemPath(p.id))).status).toBe(401);
  });

  it('answers 401 for an organisation credential', async () => {
    const p = await world.project();
    expect((await api.request('GET', itemPath(p.id), { token: op.org })).status).toBe(401);
  });

  it('answers 403 without view-controls', async () => {
    const p = await world.project({}, ['view-projects']);
    expect((await api.request('GET', itemPath(p.id), { token: p.token })).status).toBe(403);
  });

  it('answers 429 once the credential read budget is spent', async () => {
    const p = await world.project();
    let status = 200;
    for (let i = 0; i <= READS_PER_CREDENTIAL * 2 && status !== 429; i++) status = (await api.request('GET', itemPath(p.id), { token: p.token })).status;
    expect(status).toBe(429);
  });
});
