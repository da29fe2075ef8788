import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { CONTENT_BUDGET_BYTES, LIBRARY_DEFINITION_IDS as IDS, LIBRARY_DEFINITIONS } from '../../lib/domain/library.js';
import { permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { setUserStatus } from '../../lib/store/identity.js';
import { gsi1, keys } from '../../lib/store/keys.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

// Generous budgets, except the credential read budget, which the 429 test spends on a token of its own.
const READS_PER_CREDENTIAL = 40;

beforeAll(async () => {
  api = await startApi({ ...GENEROUS_BUDGETS, API_READ_RATE_LIMIT_PER_MINUTE: String(READS_PER_CREDENTIAL) });
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const itemPath = (project: string, definition: string = IDS.informationSecurityPolicy) => `/api/v1/projects/${project}/library/${definition}`;
const listPath = (project: string) => `/api/v1/projects/${project}/library`;

/** A project of the operator's organisation and a project credential on it (every project permission unless told). */
const token = (projectId: string, abilities: readonly Permission[] = permissionsOf('project'), readOnly = false) =>
  fixtures.token(op.userId, 'project', { projectId, abilities, readOnly });

async function project(options: Partial<StoredProject> = {}, abilities: readonly Permission[] = permissionsOf('project')) {
  const id = await fixtures.project(op.organisationId, options);
  await fixtures.grant(op.userId, { kind: 'project', id }, permissionsOf('project'));
  return { id, token: await token(id, abilities) };
}

/** A new project's item as GET shows it before any edit: its path, credential and version-0 ETag. */
async function fresh(definition: string = IDS.informationSecurityPolicy) {
  const p = await project();
  const path = itemPath(p.id, definition);
  const got = await api.request('GET', path, { token: p.token });
  return { ...p, path, etag: got.headers.get('etag')! };
}

const patch = (path: string, tok: string, etag: string | undefined, body: unknown, contentType?: string) =>
  api.request('PATCH', path, { token: tok, body, contentType, headers: etag ? { 'If-Match': etag } : {} });

/** A user who is an active member of the operator's organisation (project-scope access there). */
async function member() {
  const userId = await fixtures.user();
  await fixtures.grant(userId, { kind: 'project', id: await fixtures.project(op.organisationId) }, ['view-controls']);
  return userId;
}

describe('listLibrary', () => {
  it('lists every definition in catalogue order with empty working copies', async () => {
    const p = await project();
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
    const p = await project();
    await api.request('GET', listPath(p.id), { token: p.token });
    await api.request('GET', itemPath(p.id), { token: p.token });
    const stored = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': `PROJECT#${p.id}`, ':sk': 'LIBRARY#' },
    });
    expect(stored).toEqual([]);
  });

  it('summarises a written working copy without its content', async () => {
    const p = await fresh(IDS.continuityPlan);
    await patch(p.path, p.token, p.etag, { content_markdown: 'Résumé', classification: 'OS' });
    const res = await api.request('GET', listPath(p.id), { token: p.token });
    const entry = res.body.data.find((d: { id: string }) => d.id === IDS.continuityPlan);
    expect(entry).toMatchObject({ content_bytes: 8, classification: 'OS', updated_by: op.userId });
    expect(entry).not.toHaveProperty('content_markdown');
  });

  it('answers 422 for an unknown query parameter', async () => {
    const p = await project();
    expect((await api.request('GET', `${listPath(p.id)}?page[size]=5`, { token: p.token })).status).toBe(422);
  });
});

describe('getLibraryItem', () => {
  it('answers the definition with an empty working copy and an ETag before any edit', async () => {
    const p = await project();
    const res = await api.request('GET', itemPath(p.id, IDS.sspAnnex), { token: p.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"0-[0-9a-f]{20}"$/);
    expect(res.body.data).toMatchObject({ id: IDS.sspAnnex, key: 'ssp-annex', kind: 'policy', content_markdown: null, owner_user_id: null });
  });

  it('answers 404 for a ULID that names no definition', async () => {
    const p = await project();
    expect((await api.request('GET', itemPath(p.id, ulid()), { token: p.token })).status).toBe(404);
  });

  it('answers 422 for a definition that is not a ULID', async () => {
    const p = await project();
    const res = await api.request('GET', itemPath(p.id, 'information-security-policy'), { token: p.token });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/path/definition');
  });

  it('answers 404 for another project than the credential is bound to', async () => {
    const p = await project();
    const other = await project();
    expect((await api.request('GET', itemPath(other.id), { token: p.token })).status).toBe(404);
  });

  it('answers 401 without a credential', async () => {
    const p = await project();
    expect((await api.request('GET', itemPath(p.id))).status).toBe(401);
  });

  it('answers 401 for an organisation credential', async () => {
    const p = await project();
    expect((await api.request('GET', itemPath(p.id), { token: op.org })).status).toBe(401);
  });

  it('answers 403 without view-controls', async () => {
    const p = await project({}, ['view-projects']);
    expect((await api.request('GET', itemPath(p.id), { token: p.token })).status).toBe(403);
  });

  it('answers 429 once the credential read budget is spent', async () => {
    const p = await project();
    let status = 200;
    for (let i = 0; i <= READS_PER_CREDENTIAL * 2 && status !== 429; i++) status = (await api.request('GET', itemPath(p.id), { token: p.token })).status;
    expect(status).toBe(429);
  });
});

describe('updateLibraryItem', () => {
  it('creates the working copy with the version-0 ETag and answers it with a new ETag', async () => {
    const p = await fresh();
    const res = await patch(p.path, p.token, p.etag, { content_markdown: '# Policy\n', classification: 'P', date_live: '2026-01-01' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"1-/);
    expect(res.body.data).toMatchObject({
      content_markdown: '# Policy\n',
      classification: 'P',
      date_live: '2026-01-01',
      review_due: null,
      updated_by: op.userId,
    });
    expect((await api.request('GET', p.path, { token: p.token })).body.data).toEqual(res.body.data);
  });

  it('answers 412 for the version-0 ETag once the copy exists', async () => {
    const p = await fresh();
    await patch(p.path, p.token, p.etag, { classification: 'P' });
    expect((await patch(p.path, p.token, p.etag, { classification: 'S' })).status).toBe(412);
  });

  it("answers 412 for another project's version-0 ETag", async () => {
    const a = await fresh();
    const b = await fresh();
    expect((await patch(b.path, b.token, a.etag, { classification: 'S' })).status).toBe(412);
  });

  it('answers 428 without If-Match', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, undefined, { classification: 'S' })).status).toBe(428);
  });

  it('keeps omitted properties and clears those sent as null', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { content_markdown: 'Text', classification: 'P', date_live: '2026-01-01' });
    const res = await patch(p.path, p.token, first.headers.get('etag')!, { classification: null });
    expect(res.body.data).toMatchObject({ content_markdown: 'Text', classification: null, date_live: '2026-01-01' });
  });

  it('stores the content exactly as sent', async () => {
    const p = await fresh();
    const content = '<div class="note" id="scope">Scope</div>\r\n\r\n* item  \n\ttabbed [link](https://example.com "t")\n';
    await patch(p.path, p.token, p.etag, { content_markdown: content });
    expect((await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy)))?.content_markdown).toBe(content);
  });

  it('keeps the content out of the working copy item, which the review-due index projects', async () => {
    const p = await fresh();
    await patch(p.path, p.token, p.etag, { content_markdown: 'Text', review_due: '2026-03-01' });
    const stored = await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy));
    expect(stored).toMatchObject({ content_bytes: 4, GSI1PK: gsi1.reviewDue });
    expect(stored).not.toHaveProperty('content_markdown');
  });

  it('removes the content item when the content is cleared', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { content_markdown: 'Text' });
    const res = await patch(p.path, p.token, first.headers.get('etag')!, { content_markdown: null });
    expect(res.body.data.content_markdown).toBeNull();
    expect(await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
  });

  it('keeps the stored content through edits of other properties', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { content_markdown: 'Text' });
    await patch(p.path, p.token, first.headers.get('etag')!, { classification: 'OS' });
    expect((await api.request('GET', p.path, { token: p.token })).body.data).toMatchObject({ content_markdown: 'Text', classification: 'OS' });
  });

  it('indexes the review_due date for the review sweep, and drops it when cleared', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { review_due: '2026-03-01' });
    const stored = await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy));
    expect(stored).toMatchObject({
      GSI1PK: gsi1.reviewDue,
      GSI1SK: `2026-03-01#${p.id}#library-item#${IDS.informationSecurityPolicy}#${IDS.informationSecurityPolicy}`,
    });
    await patch(p.path, p.token, first.headers.get('etag')!, { review_due: null });
    expect(await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy))).not.toHaveProperty('GSI1PK');
  });

  it('writes an audit record naming the project, the definition and the changed fields', async () => {
    const p = await fresh();
    const res = await patch(p.path, p.token, p.etag, { classification: 'TS' });
    const records = await auditRecords(op.organisationId);
    const record = records.find((r) => r.request_id === res.body.meta.request_id);
    expect(record).toMatchObject({
      kind: 'UPDATE_LIBRARY_ITEM',
      target: { project: p.id, definition: IDS.informationSecurityPolicy },
      details: { changed_fields: 'classification' },
    });
  });

  it('accepts an active member of the organisation as owner', async () => {
    const p = await fresh();
    const owner = await member();
    const res = await patch(p.path, p.token, p.etag, { owner_user_id: owner });
    expect(res.status).toBe(200);
    expect(res.body.data.owner_user_id).toBe(owner);
  });

  it('answers 422 owner_not_member for a user of another organisation', async () => {
    const p = await fresh();
    const outsider = await fixtures.user();
    await fixtures.grant(outsider, { kind: 'organisation', id: await fixtures.organisation(outsider) }, ['view-projects']);
    const res = await patch(p.path, p.token, p.etag, { owner_user_id: outsider });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/owner_user_id', code: 'owner_not_member' })]);
  });

  it('answers 422 owner_not_member for a disabled member', async () => {
    const p = await fresh();
    const owner = await member();
    await setUserStatus(owner, 'disabled');
    expect((await patch(p.path, p.token, p.etag, { owner_user_id: owner })).body.errors[0].code).toBe('owner_not_member');
  });

  it('answers 422 on /review_due when it precedes date_live in the same patch', async () => {
    const p = await fresh();
    const res = await patch(p.path, p.token, p.etag, { date_live: '2026-06-01', review_due: '2026-05-31' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/review_due', code: 'review_due_before_date_live' })]);
  });

  it('answers 422 on /review_due when it precedes the stored date_live', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { date_live: '2026-06-01' });
    const res = await patch(p.path, p.token, first.headers.get('etag')!, { review_due: '2026-01-01' });
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/review_due', code: 'review_due_before_date_live' })]);
  });

  it('answers 422 on /date_live when it would follow the stored review_due', async () => {
    const p = await fresh();
    const first = await patch(p.path, p.token, p.etag, { review_due: '2026-02-01' });
    const res = await patch(p.path, p.token, first.headers.get('etag')!, { date_live: '2026-03-01' });
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/date_live', code: 'review_due_before_date_live' })]);
  });

  it('accepts review_due on date_live', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, { date_live: '2026-06-01', review_due: '2026-06-01' })).status).toBe(200);
  });

  it('answers 422 naming the attribute for Markdown with an event handler, and stores nothing', async () => {
    const p = await fresh();
    const res = await patch(p.path, p.token, p.etag, { content_markdown: 'Hi <img class="x" onerror="alert(1)">' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/content_markdown', code: 'markdown_attribute_not_allowed', detail: expect.stringContaining('onerror') }]);
    expect(await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
    expect(await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
  });

  it('answers 422 naming the scheme for a javascript: link', async () => {
    const p = await fresh();
    const res = await patch(p.path, p.token, p.etag, { content_markdown: '[click](JavaScript:alert(1))' });
    expect(res.body.errors).toEqual([
      { pointer: '/content_markdown', code: 'markdown_link_scheme_not_allowed', detail: expect.stringContaining('javascript:') },
    ]);
  });

  it('answers 422 content_too_large beyond the budget in UTF-8 bytes', async () => {
    const p = await fresh();
    const content = 'é'.repeat(CONTENT_BUDGET_BYTES / 2 + 1);
    const res = await patch(p.path, p.token, p.etag, { content_markdown: content });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/content_markdown', code: 'content_too_large' })]);
  });

  it('accepts content of exactly the budget', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, { content_markdown: 'a'.repeat(CONTENT_BUDGET_BYTES) })).status).toBe(200);
  });

  it('answers 422 for an unknown classification', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, { classification: 'PROTECTED' })).body.errors[0].pointer).toBe('/classification');
  });

  it('answers 422 for an empty patch', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, {})).status).toBe(422);
  });

  it('answers 422 for an unknown property, pointing at it', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, { title: 'x' })).body.errors[0].pointer).toBe('/title');
  });

  it('answers 415 for a body that is not a merge patch', async () => {
    const p = await fresh();
    expect((await patch(p.path, p.token, p.etag, { classification: 'P' }, 'application/json')).status).toBe(415);
  });

  it('answers 403 project_archived on an archived project', async () => {
    const p = await project({ archived: true });
    const path = itemPath(p.id);
    const etag = (await api.request('GET', path, { token: p.token })).headers.get('etag')!;
    const res = await patch(path, p.token, etag, { classification: 'P' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('answers 403 for a read-only credential', async () => {
    const p = await fresh();
    expect((await patch(p.path, await token(p.id, permissionsOf('project'), true), p.etag, { classification: 'P' })).status).toBe(403);
  });

  it('answers 403 without edit-control-implementation', async () => {
    const p = await fresh();
    expect((await patch(p.path, await token(p.id, ['view-controls']), p.etag, { classification: 'P' })).status).toBe(403);
  });

  it('answers 404 for a ULID that names no definition', async () => {
    const p = await fresh();
    expect((await patch(itemPath(p.id, ulid()), p.token, p.etag, { classification: 'P' })).status).toBe(404);
  });

  it('answers 401 for an organisation credential', async () => {
    const p = await fresh();
    expect((await patch(p.path, op.org, p.etag, { classification: 'P' })).status).toBe(401);
  });
});
