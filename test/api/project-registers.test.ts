import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dependenciesOf, permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;
let projectId: string;
let token: string;
let contactId: string;
let controlId: string;

const registers = (project = projectId) => `/api/v1/projects/${project}/registers`;
const rows = (definition: string, project = projectId) => `${registers(project)}/${definition}/rows`;
const get = (path: string, as = token) => api.request('GET', path, { token: as });
const post = (path: string, body: unknown, as = token, key = newUlid()) => api.request('POST', path, { token: as, body, headers: { 'Idempotency-Key': key } });
const patch = (path: string, body: unknown, etag: string | null, as = token) =>
  api.request('PATCH', path, { token: as, body, headers: etag ? { 'If-Match': etag } : {} });
const risk = (id: string, extra: Record<string, unknown> = {}) => ({ data: { risk_id: id, title: `Risk ${id}`, status: 'open', ...extra } });
/** Every project permission but these and those that depend on them. */
const without = (...removed: Permission[]) =>
  permissionsOf('project').filter((p) => !removed.includes(p) && !dependenciesOf('project', p).some((d) => removed.includes(d)));
const orgSystemPath = () => `/api/v1/organisations/${world.op.organisationId}/systems/${world.systemId}`;
const orgPost = (path: string, body: unknown) => api.request('POST', path, { token: world.op.org, body, headers: { 'Idempotency-Key': newUlid() } });

async function archive(project: string) {
  await ddb().send(
    new UpdateCommand({ TableName: tableName(), Key: keys.project(project), UpdateExpression: 'SET archived = :t', ExpressionAttributeValues: { ':t': true } }),
  );
}

beforeAll(async () => {
  ({ api, world } = await startProjectWorld());
  projectId = (await world.populated()).id;
  token = await world.projectToken(projectId);
  contactId = (await orgPost(`${orgSystemPath()}/contacts`, { name: 'Ada' })).body.data.id;
  controlId = (await get(`/api/v1/projects/${projectId}/controls?page[size]=1`)).body.data[0].id;
});
afterAll(() => api.stop());

describe('listProjectRegisters and getProjectRegister', () => {
  it('lists every definition the project sees, writable only where it owns a manual one', async () => {
    const res = await get(registers());
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { key: string; owner: string; writable: boolean }) => [d.key, d.owner, d.writable])).toEqual([
      ['risk-register', 'project', true],
      ['poam', 'project', true],
      ['exceptions', 'project', true],
      ['asset-register', 'system', false],
      ['third-party-register', 'system', false],
      ['contacts-directory', 'organisation', false],
      ['control-summary', 'project', false],
    ]);
  });

  it('hints writable false without manage-registers or on a read-only credential', async () => {
    const reader = await world.projectToken(projectId, ['view-registers']);
    const readOnly = await fixtures.token(world.op.userId, 'project', { projectId, readOnly: true });
    for (const as of [reader, readOnly]) expect((await get(`${registers()}/${IDS.riskRegister}`, as)).body.data.writable).toBe(false);
  });

  it('reads the control summary manifest by dimension', async () => {
    const res = await get(`${registers()}/${IDS.controlSummary}`);
    expect(res.body.data).toMatchObject({ kind: 'generated', logical_key: ['dimension', 'value'], writable: false });
    expect(res.body.data.enums.summary_dimension).toEqual(['applicability', 'implementation_status', 'workflow_state', 'assessment_outcome']);
  });

  it('answers 404 for an unknown definition and for another project', async () => {
    expect((await get(`${registers()}/${newUlid()}`)).status).toBe(404);
    expect((await get(registers(newUlid()))).status).toBe(404);
  });

  it('answers 403 without view-registers and 422 for a malformed definition', async () => {
    expect((await get(registers(), await world.projectToken(projectId, ['view-controls']))).status).toBe(403);
    const bad = await get(`${registers()}/not-a-ulid`);
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].pointer).toBe('/path/definition');
  });
});

describe('project register rows', () => {
  it('creates a row with Location, ETag and an audit record, and reads it back', async () => {
    const res = await post(rows(IDS.riskRegister), risk('R-1', { likelihood: 'likely' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    const row = res.body.data;
    expect(row).toMatchObject({ definition_id: IDS.riskRegister, owner: 'project', redacted_fields: [] });
    expect(row.data).toMatchObject({ risk_id: 'R-1', likelihood: 'likely', risk_owner: null, related_control: null });
    expect(res.headers.get('location')).toBe(`${rows(IDS.riskRegister)}/${row.id}`);
    const read = await get(`${rows(IDS.riskRegister)}/${row.id}`);
    expect(read.body.data).toEqual(row);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    const audit = (await auditRecords(world.op.organisationId)).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(audit).toMatchObject({ kind: 'CREATE_PROJECT_REGISTER_ROW', target: { project: projectId, definition: IDS.riskRegister, row: row.id } });
  });

  it('replays a create with the same Idempotency-Key and refuses the key with another payload (409)', async () => {
    const key = newUlid();
    const first = await post(rows(IDS.poam), { data: { item_id: 'P-1', weakness: 'Weak', status: 'open' } }, token, key);
    const again = await post(rows(IDS.poam), { data: { item_id: 'P-1', weakness: 'Weak', status: 'open' } }, token, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await post(rows(IDS.poam), { data: { item_id: 'P-2', weakness: 'Weak', status: 'open' } }, token, key)).status).toBe(409);
  });

  it('refuses a second row with the same logical key (422 at the key column)', async () => {
    await post(rows(IDS.riskRegister), risk('R-DUP'));
    const res = await post(rows(IDS.riskRegister), risk(' r-dup '));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/risk_id', code: 'logical_key_taken' })]);
  });

  it('answers 400 for a body that is not JSON and 422 for a value of the wrong type', async () => {
    const malformed = await api.request('POST', rows(IDS.riskRegister), {
      token,
      rawBody: '{',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() },
    });
    expect(malformed.status).toBe(400);
    const wrong = await post(rows(IDS.riskRegister), risk('R-X', { likelihood: 'often' }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/data/likelihood']);
  });

  it('pages a register with an exact total, oldest first', async () => {
    const p = (await world.populated()).id;
    const as = await world.projectToken(p);
    for (const id of ['A', 'B', 'C']) expect((await post(rows(IDS.riskRegister, p), risk(id), as)).status).toBe(201);
    const first = await get(`${rows(IDS.riskRegister, p)}?page[size]=2`, as);
    expect(first.body.meta).toMatchObject({ total: 3, current_page: 1, page_size: 2 });
    expect(first.body.data.map((r: { data: { risk_id: string } }) => r.data.risk_id)).toEqual(['A', 'B']);
    const second = await get(`${rows(IDS.riskRegister, p)}?page[size]=2&page[number]=2`, as);
    expect(second.body.data.map((r: { data: { risk_id: string } }) => r.data.risk_id)).toEqual(['C']);
  });

  it('answers 404 for an unknown row', async () => {
    expect((await get(`${rows(IDS.riskRegister)}/${newUlid()}`)).status).toBe(404);
  });

  it('answers 404 for the rows of an unknown definition', async () => {
    const definition = newUlid();
    expect((await get(rows(definition))).status).toBe(404);
    expect((await get(`${rows(definition)}/${newUlid()}`)).status).toBe(404);
    expect((await post(rows(definition), risk('N-1'))).status).toBe(404);
  });

  it('answers 422 for a page size beyond 100 and a malformed row ID', async () => {
    expect((await get(`${rows(IDS.riskRegister)}?page[size]=101`)).status).toBe(422);
    expect((await get(`${rows(IDS.riskRegister)}/row-1`)).status).toBe(422);
  });

  it('answers 403 for row reads without view-registers', async () => {
    const other = await world.projectToken(projectId, ['view-controls']);
    expect((await get(rows(IDS.riskRegister), other)).status).toBe(403);
  });
});

const exception = (id: string, extra: Record<string, unknown> = {}) => ({
  data: { exception_id: id, title: `Exception ${id}`, related_control: controlId, justification: 'Legacy platform', status: 'proposed', ...extra },
});

describe('updateProjectRegisterRow', () => {
  async function created(id: string) {
    const res = await post(rows(IDS.riskRegister), risk(id));
    return { url: `${rows(IDS.riskRegister)}/${res.body.data.id}`, etag: res.headers.get('etag')! };
  }

  it('merges the patch and answers the new ETag', async () => {
    const { url, etag } = await created('U-1');
    const res = await patch(url, { data: { treatment: 'Patch monthly', status: 'treating' } }, etag);
    expect(res.status).toBe(200);
    expect(res.body.data.data).toMatchObject({ risk_id: 'U-1', treatment: 'Patch monthly', status: 'treating' });
    expect(res.headers.get('etag')).not.toBe(etag);
    expect((await get(url)).headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('needs If-Match (428) naming the current version (412)', async () => {
    const { url, etag } = await created('U-2');
    expect((await patch(url, { data: { treatment: 'a' } }, null)).status).toBe(428);
    expect((await patch(url, { data: { treatment: 'a' } }, etag)).status).toBe(200);
    expect((await patch(url, { data: { treatment: 'b' } }, etag)).status).toBe(412);
  });

  it('refuses to clear a required column (422)', async () => {
    const { url, etag } = await created('U-3');
    const res = await patch(url, { data: { title: null } }, etag);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/data/title');
  });

  it('answers 404 for an unknown row', async () => {
    const { etag } = await created('U-4');
    expect((await patch(`${rows(IDS.riskRegister)}/${newUlid()}`, { data: { treatment: 'a' } }, etag)).status).toBe(404);
  });

  it('keeps a row with review_due in the review-due index, and takes it out when the date is cleared', async () => {
    const res = await post(rows(IDS.riskRegister), risk('U-5', { review_due: '2027-01-31' }));
    const key = keys.projectRegisterRow(projectId, IDS.riskRegister, res.body.data.id);
    expect(await getOne(key)).toMatchObject({
      GSI1PK: 'REVIEW_DUE',
      GSI1SK: `2027-01-31#${projectId}#register-row#${IDS.riskRegister}#${res.body.data.id}`,
    });
    await patch(`${rows(IDS.riskRegister)}/${res.body.data.id}`, { data: { review_due: null } }, res.headers.get('etag'));
    expect((await getOne(key))?.GSI1PK).toBeUndefined();
  });
});

describe('shared, generated and archived registers refuse writes', () => {
  it('reads the system register rows and the organisation register rows, with exact totals', async () => {
    const p = (await world.populated()).id;
    const as = await world.projectToken(p);
    const asset = await orgPost(`${orgSystemPath()}/registers/${IDS.assetRegister}/rows`, { data: { asset_tag: `AT-${p}`, name: 'Firewall' } });
    await orgPost(`${orgSystemPath()}/registers/${IDS.contactsDirectory}/rows`, { data: { full_name: `Ada ${p}`, organisation_name: 'ACME' } });
    const systemRows = await get(`${rows(IDS.assetRegister, p)}?page[size]=100`, as);
    expect(systemRows.body.data.map((r: { id: string }) => r.id)).toContain(asset.body.data.id);
    expect(systemRows.body.meta.total).toBe(systemRows.body.data.length);
    expect((await get(`${rows(IDS.contactsDirectory, p)}?page[size]=100`, as)).body.data.some((r: { owner: string }) => r.owner === 'organisation')).toBe(true);
    const one = await get(`${rows(IDS.assetRegister, p)}/${asset.body.data.id}`, as);
    expect(one.body.data).toMatchObject({ id: asset.body.data.id, owner: 'system', data: { name: 'Firewall' } });
  });

  it.each([
    ['a system register', IDS.assetRegister, 'shared_register_read_only'],
    ['the organisation register', IDS.contactsDirectory, 'shared_register_read_only'],
    ['the generated control summary', IDS.controlSummary, 'generated_register_read_only'],
  ])('refuses to create or edit rows of %s (403)', async (_label, definition, code) => {
    const created = await post(rows(definition), { data: {} });
    expect([created.status, created.body.code]).toEqual([403, code]);
    const edited = await patch(`${rows(definition)}/${newUlid()}`, { data: { name: 'x' } }, '"x"');
    expect([edited.status, edited.body.code]).toEqual([403, code]);
  });

  it('refuses writes on an archived project (403 project_archived)', async () => {
    const p = (await world.populated()).id;
    const as = await world.projectToken(p);
    const res = await post(rows(IDS.riskRegister, p), risk('A-1'), as);
    await archive(p);
    const created = await post(rows(IDS.riskRegister, p), risk('A-2'), as);
    expect([created.status, created.body.code]).toEqual([403, 'project_archived']);
    const edited = await patch(`${rows(IDS.riskRegister, p)}/${res.body.data.id}`, { data: { treatment: 'a' } }, res.headers.get('etag'), as);
    expect([edited.status, edited.body.code]).toEqual([403, 'project_archived']);
  });

  it('answers 403 without manage-registers', async () => {
    const reader = await world.projectToken(projectId, without('manage-registers'));
    expect((await post(rows(IDS.riskRegister), risk('M-1'), reader)).status).toBe(403);
  });
});

describe('references', () => {
  it('accepts an active contact of the system, a control of the project and a catalogue document', async () => {
    const res = await post(rows(IDS.exceptions), exception('REF-1', { approved_by: contactId, supporting_document: 'ssp' }));
    expect(res.status).toBe(201);
    expect(res.body.data.data).toMatchObject({ approved_by: contactId, related_control: controlId, supporting_document: 'ssp' });
  });

  it.each([
    ['an unknown contact', { risk_owner: newUlid() }, '/data/risk_owner'],
    ['a control ULID of no control of this project', { related_control: newUlid() }, '/data/related_control'],
    ['a reference code no control of this project has', { related_control: 'ISM-9999' }, '/data/related_control'],
  ])('refuses %s (422 invalid_reference)', async (_label, extra, pointer) => {
    const res = await post(rows(IDS.riskRegister), risk(`BAD-${newUlid()}`, extra));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer, code: 'invalid_reference' })]);
  });

  it('refuses a document key outside the catalogue (422 invalid_reference)', async () => {
    const res = await post(rows(IDS.exceptions), exception(`BAD-${newUlid()}`, { supporting_document: 'no-such-document' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/supporting_document', code: 'invalid_reference' })]);
  });

  it('refuses a contact of another system (422 invalid_reference)', async () => {
    const other = await api.request('POST', `/api/v1/organisations/${world.op.organisationId}/systems`, {
      token: world.op.org,
      body: { name: 'Other', short_code: `O${newUlid().slice(-6)}` },
      headers: { 'Idempotency-Key': newUlid() },
    });
    const foreign = await orgPost(`/api/v1/organisations/${world.op.organisationId}/systems/${other.body.data.id}/contacts`, { name: 'Bob' });
    const res = await post(rows(IDS.riskRegister), risk(`BAD-${newUlid()}`, { risk_owner: foreign.body.data.id }));
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/risk_owner', code: 'invalid_reference' })]);
  });

  it.each([
    ['view-contacts', IDS.riskRegister, 'risk_owner'],
    ['view-controls', IDS.riskRegister, 'related_control'],
    ['view-docsuite', IDS.exceptions, 'supporting_document'],
  ] as const)('without %s, redacts the column on reads and refuses to set it (422)', async (permission, definition, column) => {
    const full = await post(rows(IDS.exceptions), exception(`RED-${newUlid()}`, { supporting_document: 'soa' }));
    const riskRow = await post(rows(IDS.riskRegister), risk(`RED-${newUlid()}`, { risk_owner: contactId, related_control: controlId }));
    const row = definition === IDS.exceptions ? full : riskRow;
    const limited = await world.projectToken(projectId, without(permission));
    const read = await get(`${rows(definition)}/${row.body.data.id}`, limited);
    expect(read.body.data.redacted_fields).toContain(column);
    expect(read.body.data.data).not.toHaveProperty(column);
    expect(read.headers.get('etag')).not.toBe(row.headers.get('etag'));
    const listed = await get(`${rows(definition)}?page[size]=100`, limited);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(listed.body.data.every((r: { redacted_fields: string[] }) => r.redacted_fields.includes(column))).toBe(true);
    const set = await patch(`${rows(definition)}/${row.body.data.id}`, { data: { [column]: null } }, read.headers.get('etag'), limited);
    expect(set.status).toBe(422);
    expect(set.body.errors).toEqual([expect.objectContaining({ pointer: `/data/${column}`, code: 'unreadable_reference' })]);
  });
});
