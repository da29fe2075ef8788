import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Release } from '../../lib/catalogue/store.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { EICAR, form, officeDocument, PDF } from '../support/files.js';
import { linkForm, providerArtefacts } from '../support/provider-artefacts.js';
import { GENEROUS_BUDGETS, importSample } from '../support/projects.js';
import { releaseAsStored, storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let ism: Release;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  ism = await importSample();
  op = await fixtures.operator();
});
afterAll(() => api.stop());

async function arrange() {
  const provider = await storedProvider();
  return { provider, a: providerArtefacts(api, provider.id, op.admin) };
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const xlsx = () => officeDocument('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml', 'xl');

describe('createProviderArtefact: links', () => {
  it('stores a link as it is, never fetched, with status stored and no file_url', async () => {
    const { provider, a } = await arrange();
    const res = await a.create(linkForm('https://provider.example/irap/summary', { name: 'IRAP summary' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      provider_id: provider.id,
      kind: 'link',
      url: 'https://provider.example/irap/summary',
      name: 'IRAP summary',
      status: 'stored',
      restricted: false,
      release_id: null,
      file_url: null,
    });
    expect(res.headers.get('location')).toBe(`/api/v1/external-providers/${provider.id}/artefacts/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"1-/);
  });

  it.each(['ftp://provider.example/x', 'javascript:alert(1)', 'file:///etc/passwd', 'not a url'])('refuses the link %s (422 at /url)', async (url) => {
    const { a } = await arrange();
    const res = await a.create(linkForm(url));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/url');
  });

  it('refuses a form with both a link and a file, and one with neither (422)', async () => {
    const { a } = await arrange();
    expect((await a.create(form(PDF, 'r.pdf', 'application/pdf', { url: 'https://provider.example' }))).status).toBe(422);
    const empty = new FormData();
    empty.append('name', 'nothing');
    expect((await a.create(empty)).status).toBe(422);
  });

  it('refuses unknown form fields (422)', async () => {
    const { a } = await arrange();
    expect((await a.create(linkForm('https://provider.example', { colour: 'blue' }))).status).toBe(422);
  });

  it('answers 400 without an Idempotency-Key', async () => {
    const { provider } = await arrange();
    const res = await api.request('POST', `/api/v1/external-providers/${provider.id}/artefacts`, {
      token: op.admin,
      form: linkForm('https://provider.example'),
    });
    expect(res.status).toBe(400);
  });

  it('replays the first answer for the same key, and answers 409 for another payload under it', async () => {
    const { a } = await arrange();
    const key = newUlid();
    const first = await a.create(linkForm('https://provider.example/a'), key);
    const again = await a.create(linkForm('https://provider.example/a'), key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await a.list()).body.meta.total).toBe(1);
    expect((await a.create(linkForm('https://provider.example/b'), key)).status).toBe(409);
  });

  it('writes an audit record naming the provider and the artefact, without the link', async () => {
    const { provider, a } = await arrange();
    const res = await a.create(linkForm('https://provider.example/secret-path'));
    const records = await auditRecords('installation');
    const record = records.find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(record).toMatchObject({ kind: 'CREATE_PROVIDER_ARTEFACT', target: { provider: provider.id, artefact: res.body.data.id } });
    expect(JSON.stringify(record)).not.toContain('secret-path');
  });

  it('answers 404 for an unknown provider', async () => {
    const a = providerArtefacts(api, newUlid(), op.admin);
    expect((await a.create(linkForm('https://provider.example'))).status).toBe(404);
  });

  it('is refused to read-only credentials (403)', async () => {
    const { a } = await arrange();
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    expect((await a.create(linkForm('https://provider.example'), newUlid(), readOnly)).status).toBe(403);
  });
});

describe('createProviderArtefact: files', () => {
  it('keeps a file pending until its scan makes it ready, with its detected type and a protected file_url', async () => {
    const { provider, a } = await arrange();
    const made = await a.created(form(xlsx(), 'ccm.xlsx', XLSX));
    expect(made).toMatchObject({ kind: 'file', status: 'pending', file_name: 'ccm.xlsx', name: 'ccm.xlsx', file_url: null, detected_type: null });
    await api.drainJobs();
    const read = await a.get(made.id);
    expect(read.body.data).toMatchObject({
      status: 'ready',
      detected_type: XLSX,
      file_url: `/api/v1/external-providers/${provider.id}/artefacts/${made.id}/file`,
    });
  });

  it('moves the ETag when the scan settles the file', async () => {
    const { a } = await arrange();
    const made = await a.created(form(PDF, 'report.pdf', 'application/pdf'));
    const before = (await a.get(made.id)).headers.get('etag');
    await api.drainJobs();
    expect((await a.get(made.id)).headers.get('etag')).not.toBe(before);
  });

  it('turns the EICAR test file into error (malware_detected), with no file_url', async () => {
    const { a } = await arrange();
    const made = await a.created(form(EICAR, 'eicar.txt', 'text/plain'));
    await api.drainJobs();
    const read = await a.get(made.id);
    expect(read.body.data).toMatchObject({ status: 'error', error_code: 'malware_detected', file_url: null });
    expect((await a.download(made.id)).status).toBe(404);
  });

  it('refuses a macro-enabled workbook after its scan (unsupported_type)', async () => {
    const { a } = await arrange();
    const xlsm = officeDocument('application/vnd.ms-excel.sheet.macroEnabled.main+xml', 'xl');
    const made = await a.created(form(xlsm, 'ccm.xlsm', 'application/vnd.ms-excel.sheet.macroEnabled.12'));
    await api.drainJobs();
    expect((await a.get(made.id)).body.data).toMatchObject({ status: 'error', error_code: 'unsupported_type' });
  });

  it('accepts CSV and JSON by their text rule', async () => {
    const { a } = await arrange();
    const csv = await a.created(form(Buffer.from('control,responsibility\nism-0001,provider\n'), 'ccm.csv', 'text/csv'));
    const json = await a.created(form(Buffer.from('{"assertions":[]}'), 'assertions.json', 'application/json'));
    await api.drainJobs();
    expect((await a.get(csv.id)).body.data).toMatchObject({ status: 'ready', detected_type: 'text/csv' });
    expect((await a.get(json.id)).body.data).toMatchObject({ status: 'ready', detected_type: 'application/json' });
  });

  it('takes a file from an upload session of this provider, once', async () => {
    const { a } = await arrange();
    const session = await a.session('report.pdf', PDF);
    const data = new FormData();
    data.append('upload_session', session);
    const res = await a.create(data);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'file', file_name: 'report.pdf', status: 'pending' });
    const again = new FormData();
    again.append('upload_session', session);
    expect((await a.create(again)).body.errors?.[0]?.code).toBe('invalid_upload_session');
  });

  it("refuses another provider's upload session (422)", async () => {
    const { a } = await arrange();
    const other = await arrange();
    const data = new FormData();
    data.append('upload_session', await other.a.session('report.pdf', PDF));
    expect((await a.create(data)).body.errors?.[0]?.code).toBe('invalid_upload_session');
  });

  it('answers 404 to an upload session of an unknown provider', async () => {
    const res = await api.request('POST', `/api/v1/external-providers/${newUlid()}/artefact-upload-sessions`, {
      token: op.admin,
      body: { file_name: 'x.pdf' },
    });
    expect(res.status).toBe(404);
  });

  it('refuses an inline file above 4 MiB (413)', async () => {
    const { a } = await arrange();
    expect((await a.create(form(Buffer.alloc(4 * 1024 * 1024 + 1, 65), 'big.txt', 'text/plain'))).status).toBe(413);
  });
});

describe('createProviderArtefact: releases', () => {
  it('joins a draft release, takes its ISM release and moves its artefact count and ETag', async () => {
    const { provider, a } = await arrange();
    const release = await storedRelease(provider.id, { status: 'draft', ismVersionId: ism.id });
    const made = await a.created(linkForm('https://provider.example/ccm', { release_id: release.id }));
    expect(made).toMatchObject({ release_id: release.id, ism_version_id: ism.id });
    expect((await releaseAsStored(provider.id, release.id)).artefacts).toBe(1);
  });

  it('refuses a published release (409 release_published)', async () => {
    const { provider, a } = await arrange();
    const release = await storedRelease(provider.id);
    const res = await a.create(linkForm('https://provider.example/ccm', { release_id: release.id }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_published');
  });

  it('refuses a release of another provider and an unknown ISM release (422)', async () => {
    const { a } = await arrange();
    const other = await storedProvider();
    const theirs = await storedRelease(other.id, { status: 'draft' });
    expect((await a.create(linkForm('https://provider.example', { release_id: theirs.id }))).body.errors?.[0]?.code).toBe('unknown_release');
    expect((await a.create(linkForm('https://provider.example', { ism_version_id: newUlid() }))).body.errors?.[0]?.code).toBe('unknown_ism_release');
  });
});

describe('getProviderArtefact, listProviderArtefacts', () => {
  it('answers the ETag the create answered until the artefact changes', async () => {
    const { a } = await arrange();
    const res = await a.create(linkForm('https://provider.example'));
    const read = await a.get(res.body.data.id);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    // The detail adds the artefact's import run, which a new artefact has none of.
    expect(read.body.data).toEqual({ ...res.body.data, import: null });
  });

  it('answers 404 for an unknown artefact and for one of another provider', async () => {
    const { a } = await arrange();
    const other = await arrange();
    const theirs = await other.a.created(linkForm('https://provider.example'));
    expect((await a.get(newUlid())).status).toBe(404);
    expect((await a.get(theirs.id)).status).toBe(404);
  });

  it('lists oldest first with the total, paginated', async () => {
    const { a } = await arrange();
    const ids = [];
    for (const n of [1, 2, 3]) ids.push((await a.created(linkForm(`https://provider.example/${n}`))).id);
    const first = await a.list('?page[size]=2');
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(0, 2));
    expect(first.body.meta).toMatchObject({ total: 3, page_size: 2, current_page: 1 });
    const second = await a.list('?page[size]=2&page[number]=2');
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual(ids.slice(2));
  });
});

describe('downloadProviderArtefact', () => {
  it('streams a ready file, private and no-store', async () => {
    const { a } = await arrange();
    const made = await a.created(form(PDF, 'report.pdf', 'application/pdf'));
    await api.drainJobs();
    const res = await a.download(made.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.bytes.equals(PDF)).toBe(true);
  });

  it('answers 404 while the file is pending, and for a link', async () => {
    const { a } = await arrange();
    const pending = await a.created(form(PDF, 'report.pdf', 'application/pdf'));
    expect((await a.download(pending.id)).status).toBe(404);
    await api.drainJobs();
    const link = await a.created(linkForm('https://provider.example'));
    expect((await a.download(link.id)).status).toBe(404);
  });
});

describe('deleteProviderArtefact', () => {
  it('deletes with the current ETag: 428 without, 412 when stale', async () => {
    const { provider, a } = await arrange();
    const made = await a.created(form(PDF, 'report.pdf', 'application/pdf'));
    const stale = (await a.get(made.id)).headers.get('etag')!;
    await api.drainJobs();
    expect((await api.request('DELETE', `/api/v1/external-providers/${provider.id}/artefacts/${made.id}`, { token: op.admin })).status).toBe(428);
    expect((await a.remove(made.id, stale)).status).toBe(412);
    const res = await a.remove(made.id, (await a.get(made.id)).headers.get('etag')!);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: made.id, deleted: true });
    expect((await a.get(made.id)).status).toBe(404);
    expect((await a.list()).body.meta.total).toBe(0);
  });

  it('refuses an artefact of a published release (409 release_published)', async () => {
    const { provider, a } = await arrange();
    const release = await storedRelease(provider.id, { status: 'draft', ismVersionId: ism.id });
    const made = await a.created(linkForm('https://provider.example', { release_id: release.id }));
    const etag = (await a.get(made.id)).headers.get('etag')!;
    const releaseEtag = (
      await api.request('GET', `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}`, { token: op.admin })
    ).headers.get('etag')!;
    await api.request('POST', `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}/publish`, {
      token: op.admin,
      headers: { 'If-Match': releaseEtag },
      body: {},
    });
    const res = await a.remove(made.id, etag);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_published');
  });

  it('keeps a draft release with artefacts from deletion (409 release_has_artefacts)', async () => {
    const { provider, a } = await arrange();
    const release = await storedRelease(provider.id, { status: 'draft', ismVersionId: ism.id });
    await a.created(linkForm('https://provider.example', { release_id: release.id }));
    const url = `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}`;
    const etag = (await api.request('GET', url, { token: op.admin })).headers.get('etag')!;
    const res = await api.request('DELETE', url, { token: op.admin, headers: { 'If-Match': etag } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_has_artefacts');
  });

  it('keeps a provider with artefacts from deletion (409 provider_has_artefacts)', async () => {
    const { provider, a } = await arrange();
    await a.created(linkForm('https://provider.example'));
    const url = `/api/v1/external-providers/${provider.id}`;
    const etag = (await api.request('GET', url, { token: op.admin })).headers.get('etag')!;
    const res = await api.request('DELETE', url, { token: op.admin, headers: { 'If-Match': etag } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('provider_has_artefacts');
  });
});
