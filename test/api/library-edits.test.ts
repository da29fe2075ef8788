import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { CONTENT_BUDGET_BYTES } from '../../lib/domain/library.js';
import { LIBRARY_DEFINITION_IDS as IDS } from '../../lib/domain/library-definitions.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { setUserStatus } from '../../lib/store/identity.js';
import { gsi1, keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { itemPath, libraryWorld } from '../support/library.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let world: ReturnType<typeof libraryWorld>;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  op = await fixtures.operator();
  world = libraryWorld(api, op);
});
afterAll(() => api.stop());

describe('updateLibraryItem', () => {
  it('creates the working copy with the version-0 ETag and answers it with a new ETag', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { content_markdown: '# Policy\n', classification: 'P', date_live: '2026-01-01' });
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
    const p = await world.fresh();
    await world.patch(p.path, p.token, p.etag, { classification: 'P' });
    expect((await world.patch(p.path, p.token, p.etag, { classification: 'S' })).status).toBe(412);
  });

  it("answers 412 for another project's version-0 ETag", async () => {
    const a = await world.fresh();
    const b = await world.fresh();
    expect((await world.patch(b.path, b.token, a.etag, { classification: 'S' })).status).toBe(412);
  });

  it('answers 428 without If-Match', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, undefined, { classification: 'S' })).status).toBe(428);
  });

  it('keeps omitted properties and clears those sent as null', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { content_markdown: 'Text', classification: 'P', date_live: '2026-01-01' });
    const res = await world.patch(p.path, p.token, first.headers.get('etag')!, { classification: null });
    expect(res.body.data).toMatchObject({ content_markdown: 'Text', classification: null, date_live: '2026-01-01' });
  });

  it('stores the content exactly as sent', async () => {
    const p = await world.fresh();
    const content = '<div class="note" id="scope">Scope</div>\r\n\r\n* item  \n\ttabbed [link](https://example.com "t")\n';
    await world.patch(p.path, p.token, p.etag, { content_markdown: content });
    expect((await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy)))?.content_markdown).toBe(content);
  });

  it('keeps the content out of the working copy item, which the review-due index projects', async () => {
    const p = await world.fresh();
    await world.patch(p.path, p.token, p.etag, { content_markdown: 'Text', review_due: '2026-03-01' });
    const stored = await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy));
    expect(stored).toMatchObject({ content_bytes: 4, GSI1PK: gsi1.reviewDue });
    expect(stored).not.toHaveProperty('content_markdown');
  });

  it('removes the content item when the content is cleared', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { content_markdown: 'Text' });
    const res = await world.patch(p.path, p.token, first.headers.get('etag')!, { content_markdown: null });
    expect(res.body.data.content_markdown).toBeNull();
    expect(await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
  });

  it('keeps the stored content through edits of other properties', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { content_markdown: 'Text' });
    await world.patch(p.path, p.token, first.headers.get('etag')!, { classification: 'OS' });
    expect((await api.request('GET', p.path, { token: p.token })).body.data).toMatchObject({ content_markdown: 'Text', classification: 'OS' });
  });

  it('indexes the review_due date for the review sweep, and drops it when cleared', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { review_due: '2026-03-01' });
    const stored = await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy));
    expect(stored).toMatchObject({
      GSI1PK: gsi1.reviewDue,
      GSI1SK: `2026-03-01#${p.id}#library-item#${IDS.informationSecurityPolicy}#${IDS.informationSecurityPolicy}`,
    });
    await world.patch(p.path, p.token, first.headers.get('etag')!, { review_due: null });
    expect(await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy))).not.toHaveProperty('GSI1PK');
  });

  it('writes an audit record naming the project, the definition and the changed fields', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { classification: 'TS' });
    const records = await auditRecords(op.organisationId);
    const record = records.find((r) => r.request_id === res.body.meta.request_id);
    expect(record).toMatchObject({
      kind: 'UPDATE_LIBRARY_ITEM',
      target: { project: p.id, definition: IDS.informationSecurityPolicy },
      details: { changed_fields: 'classification' },
    });
  });

  it('accepts an active member of the organisation as owner', async () => {
    const p = await world.fresh();
    const owner = await world.member();
    const res = await world.patch(p.path, p.token, p.etag, { owner_user_id: owner });
    expect(res.status).toBe(200);
    expect(res.body.data.owner_user_id).toBe(owner);
  });

  it('answers 422 owner_not_member for a user of another organisation', async () => {
    const p = await world.fresh();
    const outsider = await fixtures.user();
    await fixtures.grant(outsider, { kind: 'organisation', id: await fixtures.organisation(outsider) }, ['view-projects']);
    const res = await world.patch(p.path, p.token, p.etag, { owner_user_id: outsider });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/owner_user_id', code: 'owner_not_member' })]);
  });

  it('answers 422 owner_not_member for a disabled member', async () => {
    const p = await world.fresh();
    const owner = await world.member();
    await setUserStatus(owner, 'disabled');
    expect((await world.patch(p.path, p.token, p.etag, { owner_user_id: owner })).body.errors[0].code).toBe('owner_not_member');
  });

  it('answers 422 on /review_due when it precedes date_live in the same patch', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { date_live: '2026-06-01', review_due: '2026-05-31' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/review_due', code: 'review_due_before_date_live' })]);
  });

  it('answers 422 on /review_due when it precedes the stored date_live', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { date_live: '2026-06-01' });
    const res = await world.patch(p.path, p.token, first.headers.get('etag')!, { review_due: '2026-01-01' });
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/review_due', code: 'review_due_before_date_live' })]);
  });

  it('answers 422 on /date_live when it would follow the stored review_due', async () => {
    const p = await world.fresh();
    const first = await world.patch(p.path, p.token, p.etag, { review_due: '2026-02-01' });
    const res = await world.patch(p.path, p.token, first.headers.get('etag')!, { date_live: '2026-03-01' });
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/date_live', code: 'review_due_before_date_live' })]);
  });

  it('accepts review_due on date_live', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, { date_live: '2026-06-01', review_due: '2026-06-01' })).status).toBe(200);
  });

  it('answers 422 naming the attribute for Markdown with an event handler, and stores nothing', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { content_markdown: 'Hi <img class="x" onerror="alert(1)">' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/content_markdown', code: 'markdown_attribute_not_allowed', detail: expect.stringContaining('onerror') }]);
    expect(await getOne(keys.libraryItem(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
    expect(await getOne(keys.libraryContent(p.id, IDS.informationSecurityPolicy))).toBeUndefined();
  });

  it('answers 422 naming the scheme for a javascript: link', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { content_markdown: '[click](JavaScript:alert(1))' });
    expect(res.body.errors).toEqual([
      { pointer: '/content_markdown', code: 'markdown_link_scheme_not_allowed', detail: expect.stringContaining('javascript:') },
    ]);
  });

  it('answers 422 for a CDATA section, which a browser ends at its first >', async () => {
    const p = await world.fresh();
    const res = await world.patch(p.path, p.token, p.etag, { content_markdown: 'a <![CDATA[ ><img src=x onerror=alert(1)> ]]> b' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual({
      pointer: '/content_markdown',
      code: 'markdown_html_construct_not_allowed',
      detail: expect.stringContaining('<![CDATA['),
    });
  });

  it('answers 422 content_too_large beyond the budget in UTF-8 bytes', async () => {
    const p = await world.fresh();
    const content = 'é'.repeat(CONTENT_BUDGET_BYTES / 2 + 1);
    const res = await world.patch(p.path, p.token, p.etag, { content_markdown: content });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/content_markdown', code: 'content_too_large' })]);
  });

  it('accepts content of exactly the budget', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, { content_markdown: 'a'.repeat(CONTENT_BUDGET_BYTES) })).status).toBe(200);
  });

  it('answers 422 for an unknown classification', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, { classification: 'PROTECTED' })).body.errors[0].pointer).toBe('/classification');
  });

  it('answers 422 for an empty patch', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, {})).status).toBe(422);
  });

  it('answers 422 for an unknown property, pointing at it', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, { title: 'x' })).body.errors[0].pointer).toBe('/title');
  });

  it('answers 415 for a body that is not a merge patch', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, p.token, p.etag, { classification: 'P' }, 'application/json')).status).toBe(415);
  });

  it('answers 403 project_archived on an archived project', async () => {
    const p = await world.project({ archived: true });
    const path = itemPath(p.id);
    const etag = (await api.request('GET', path, { token: p.token })).headers.get('etag')!;
    const res = await world.patch(path, p.token, etag, { classification: 'P' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('answers 403 for a read-only credential', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, await world.token(p.id, permissionsOf('project'), true), p.etag, { classification: 'P' })).status).toBe(403);
  });

  it('answers 403 without edit-control-implementation', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, await world.token(p.id, ['view-controls']), p.etag, { classification: 'P' })).status).toBe(403);
  });

  it('answers 404 for a ULID that names no definition', async () => {
    const p = await world.fresh();
    expect((await world.patch(itemPath(p.id, newUlid()), p.token, p.etag, { classification: 'P' })).status).toBe(404);
  });

  it('answers 401 for an organisation credential', async () => {
    const p = await world.fresh();
    expect((await world.patch(p.path, op.org, p.etag, { classification: 'P' })).status).toBe(401);
  });
});
