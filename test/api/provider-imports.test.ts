import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { releaseEntries } from '../../lib/store/catalogue-entries.js';
import { assertionDocument, componentDefinition, formatEntry, jsonBytes, requirement } from '../support/assertion-documents.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { releasesAsserting } from '../../lib/store/assertions.js';
import { importRun, updateImportRun } from '../../lib/store/imports.js';
import { ismExcerpt } from '../support/document-model.js';
import { form, PDF } from '../support/files.js';
import { csvBytes, HEADER, matrixRow, titledMatrix, xlsxBytes } from '../support/matrices.js';
import { linkForm, providerArtefacts } from '../support/provider-artefacts.js';
import { GENEROUS_BUDGETS, importSample } from '../support/projects.js';
import { storedProvider, storedRelease } from '../support/providers.js';
import { DETECTION_SECONDS, MAX_REQUEUES } from '../../lib/queues/recovery.js';
import { takeJobs } from '../support/jobs.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let ism: Release;
let controls: string[];

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  // Enough controls for one more assertion than a transaction holds.
  ism = await importRelease(ismExcerpt(100), { sample: false }, new Date());
  op = await fixtures.operator();
  controls = (await releaseEntries(ism.id)).filter((e) => e.kind === 'control').map((e) => e.id);
});
afterAll(() => api.stop());

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A draft release of a new provider on the sample ISM release, and requests about its artefacts. */
async function arrange(status: 'draft' | 'published' = 'draft') {
  const provider = await storedProvider();
  const release = await storedRelease(provider.id, { ismVersionId: ism.id, status });
  const a = providerArtefacts(api, provider.id, op.admin);
  const url = (id: string, tail: string) => `/api/v1/external-providers/${provider.id}/artefacts/${id}/${tail}`;
  const post = (id: string, tail: string, etag: string | null, as = op.admin) =>
    api.request('POST', url(id, tail), { token: as, body: {}, headers: etag ? { 'If-Match': etag } : {} });
  /** A file of the release, scanned: its id and ETag. */
  async function ready(bytes: Uint8Array, name: string, type: string, fields: Record<string, string> = {}) {
    const made = await a.created(form(Buffer.from(bytes), name, type, { release_id: release.id, ...fields }));
    await api.drainJobs();
    const got = await a.get(made.id);
    return { id: made.id, etag: got.headers.get('etag')! };
  }
  return { provider, release, a, post, ready };
}

/** A matrix of the first three sample controls, an unknown control, a malformed row and a duplicate. */
function matrix() {
  return titledMatrix([
    matrixRow(controls[0]!.toUpperCase(), 'CSP'),
    matrixRow(controls[1]!, 'Shared'),
    matrixRow(controls[2]!, 'Customer', 'Partial'),
    matrixRow('ism-9999', 'Provider'),
    matrixRow(controls[3]!, 'Somebody else'),
    matrixRow(controls[0]!, 'Provider'),
  ]);
}

describe('useArtefactAsCcm', () => {
  it.each([
    ['CSV', async () => csvBytes(matrix()), 'ccm.csv', 'text/csv'],
    ['XLSX', async () => xlsxBytes(matrix()), 'ccm.xlsx', XLSX],
  ])('reads a %s matrix into pending assertions; artefact detail shows the completed run with its row errors', async (_kind, bytes, name, type) => {
    const { a, post, ready } = await arrange();
    const file = await ready(await bytes(), name, type);
    const started = await post(file.id, 'use-as-ccm', file.etag);
    expect(started.status).toBe(202);
    expect(started.body.data).toMatchObject({ id: file.id, import: { kind: 'ccm', status: 'running', progress: null } });
    await api.drainJobs();
    const detail = await a.get(file.id);
    expect(detail.body.data.import).toMatchObject({ status: 'completed', progress: { rows: 4, written: 4, exact: 3 }, error_count: 2 });
    expect(detail.body.data.import.errors.map((e: { row: number }) => e.row)).toEqual([8, 9]);
  });

  it('refuses a stale ETag (412), a missing one (428) and a second run while one is running (409 import_running)', async () => {
    const { a, post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    expect((await post(file.id, 'use-as-ccm', null)).status).toBe(428);
    const started = await post(file.id, 'use-as-ccm', file.etag);
    expect(started.status).toBe(202);
    expect((await post(file.id, 'use-as-ccm', file.etag)).body.code).toBe('import_running');
    await api.drainJobs();
    expect((await post(file.id, 'use-as-ccm', file.etag)).status).toBe(412);
    expect((await post(file.id, 'use-as-ccm', (await a.get(file.id)).headers.get('etag'))).status).toBe(202);
  });

  it('refuses a link (409 artefact_not_file), a file not ready (409 file_not_ready) and a file of another type (422)', async () => {
    const { a, post, ready, release } = await arrange();
    const link = await a.create(linkForm('https://provider.example/ccm', { release_id: release.id }));
    expect((await post(link.body.data.id, 'use-as-ccm', link.headers.get('etag'))).body.code).toBe('artefact_not_file');
    const pending = await a.create(form(Buffer.from(csvBytes(matrix())), 'ccm.csv', 'text/csv', { release_id: release.id }));
    expect((await post(pending.body.data.id, 'use-as-ccm', pending.headers.get('etag'))).body.code).toBe('file_not_ready');
    await api.drainJobs();
    const pdf = await ready(PDF, 'report.pdf', 'application/pdf');
    const refused = await post(pdf.id, 'use-as-ccm', pdf.etag);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ code: 'unsupported_artefact_type' });
    const json = await ready(jsonBytes(assertionDocument([formatEntry(controls[0]!)])), 'a.json', 'application/json');
    expect((await post(json.id, 'use-as-ccm', json.etag)).status).toBe(422);
  });

  it('refuses an artefact outside a release (409 artefact_not_in_release) and one of a published release (409 release_published)', async () => {
    const { provider, post } = await arrange();
    const loose = await providerArtefacts(api, provider.id, op.admin).created(form(Buffer.from(csvBytes(matrix())), 'ccm.csv', 'text/csv'));
    await api.drainJobs();
    const looseEtag = (await providerArtefacts(api, provider.id, op.admin).get(loose.id)).headers.get('etag');
    expect((await post(loose.id, 'use-as-ccm', looseEtag)).body.code).toBe('artefact_not_in_release');
    const published = await arrange();
    const file = await published.ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    await publishRelease(published.provider.id, published.release.id);
    const refused = await published.post(file.id, 'use-as-ccm', file.etag);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('release_published');
  });

  it('refuses an artefact naming another ISM release than its release (409 ism_release_mismatch)', async () => {
    const { post, ready } = await arrange();
    const other = await importSample();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv', { ism_version_id: other.id });
    expect((await post(file.id, 'use-as-ccm', file.etag)).body.code).toBe('ism_release_mismatch');
  });

  it('keeps a restricted artefact a 404 without view-restricted-provider-artefacts, and needs a mutation credential', async () => {
    const { post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv', { restricted: 'true' });
    const viewless = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy', 'upload-restricted-provider-artefacts'] });
    expect((await post(file.id, 'use-as-ccm', file.etag, viewless)).status).toBe(404);
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    expect((await post(file.id, 'use-as-ccm', file.etag, readOnly)).status).toBe(403);
    expect((await post(file.id, 'use-as-ccm', file.etag)).status).toBe(202);
  });
});

describe('the artefact ETag and its import run', () => {
  /** A matrix artefact whose use-as-ccm has been accepted (202) and whose job has not run yet. */
  async function started() {
    const arranged = await arrange();
    const file = await arranged.ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    const accepted = await arranged.post(file.id, 'use-as-ccm', file.etag);
    return { ...arranged, file, accepted, etag: accepted.headers.get('etag')! };
  }

  it('gives in the 202 the ETag and body that artefact detail gives until the run moves', async () => {
    const { a, file, accepted, etag } = await started();
    const detail = await a.get(file.id);
    expect([detail.headers.get('etag'), detail.body.data]).toEqual([etag, accepted.body.data]);
  });

  it('moves the ETag with a write of the running run', async () => {
    const { a, provider, file, etag } = await started();
    const run = (await importRun(provider.id, file.id))!;
    await updateImportRun(run, { progress: { rows: 4, written: 0, exact: 3 } });
    const detail = await a.get(file.id);
    expect([detail.body.data.import.status, detail.headers.get('etag') === etag]).toEqual(['running', false]);
  });

  it('moves the ETag when the run completes', async () => {
    const { a, file, etag } = await started();
    await api.drainJobs();
    const detail = await a.get(file.id);
    expect([detail.body.data.import.status, detail.headers.get('etag') === etag]).toEqual(['completed', false]);
  });

  it('moves the ETag when the run fails', async () => {
    const { a, post, ready } = await arrange();
    const file = await ready(
      csvBytes([
        ['no', 'header'],
        ['here', 'either'],
      ]),
      'ccm.csv',
      'text/csv',
    );
    const etag = (await post(file.id, 'use-as-ccm', file.etag)).headers.get('etag');
    await api.drainJobs();
    const detail = await a.get(file.id);
    expect([detail.body.data.import.error_code, detail.headers.get('etag') === etag]).toEqual(['no_header_row', false]);
  });

  it('refuses confirm-exact with the 202 ETag once the run has completed (412)', async () => {
    const { file, post, etag } = await started();
    await api.drainJobs();
    expect((await post(file.id, 'assertions/confirm-exact', etag)).status).toBe(412);
  });

  it('confirms the exact assertions with the ETag of detail after completion', async () => {
    const { a, file, post } = await started();
    await api.drainJobs();
    const confirmed = await post(file.id, 'assertions/confirm-exact', (await a.get(file.id)).headers.get('etag'));
    expect([confirmed.status, confirmed.body.data.confirmed]).toEqual([200, 3]);
  });

  it('gives after confirm-exact the ETag artefact detail gives', async () => {
    const { a, file, post } = await started();
    await api.drainJobs();
    const confirmed = await post(file.id, 'assertions/confirm-exact', (await a.get(file.id)).headers.get('etag'));
    expect((await a.get(file.id)).headers.get('etag')).toBe(confirmed.headers.get('etag'));
  });

  it('refuses deletion with the 202 ETag once the run has completed (412), and deletes with detail\u2019s', async () => {
    const { a, provider, file, etag } = await started();
    await api.drainJobs();
    const url = `/api/v1/external-providers/${provider.id}/artefacts/${file.id}`;
    const remove = (ifMatch: string | null) => api.request('DELETE', url, { token: op.admin, headers: ifMatch ? { 'If-Match': ifMatch } : {} });
    expect((await remove(etag)).status).toBe(412);
    expect((await remove((await a.get(file.id)).headers.get('etag'))).status).toBe(200);
  });
});

describe('importArtefact', () => {
  it('imports an OSCAL component definition; a matrix is refused (422 unsupported_artefact_type)', async () => {
    const { a, post, ready } = await arrange();
    const doc = componentDefinition([requirement(controls[0]!), requirement(controls[1]!, { 'control-origination': 'customer-configured' })]);
    const file = await ready(jsonBytes(doc), 'component.json', 'application/json');
    const started = await post(file.id, 'import', file.etag);
    expect(started.status).toBe(202);
    expect(started.body.data.import).toMatchObject({ kind: 'structured', status: 'running' });
    await api.drainJobs();
    expect((await a.get(file.id)).body.data.import).toMatchObject({ status: 'completed', progress: { rows: 2, written: 2, exact: 2 }, error_count: 0 });
    const csv = await ready(csvBytes([HEADER, matrixRow(controls[0]!, 'Provider')]), 'ccm.csv', 'text/csv');
    expect((await post(csv.id, 'import', csv.etag)).body.errors[0]).toMatchObject({ code: 'unsupported_artefact_type' });
  });
});

describe('listArtefactAssertions and confirmExactAssertions', () => {
  it('lists what a matrix imported with row etags, confirms the exact ones, then refuses once the release is published', async () => {
    const { provider, release, a, post, ready } = await arrange();
    const file = await ready(await xlsxBytes(matrix()), 'ccm.xlsx', XLSX);
    const started = await post(file.id, 'use-as-ccm', file.etag);
    await api.drainJobs();
    const list = (query = '') => api.request('GET', `/api/v1/external-providers/${provider.id}/artefacts/${file.id}/assertions${query}`, { token: op.admin });
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toMatchObject({ total: 4 });
    const rows = listed.body.data as { control_id: string; exact: boolean; status: string; review_reason: string | null; etag: string }[];
    expect(rows.filter((r) => r.exact).map((r) => r.control_id)).toEqual(controls.slice(0, 3).sort());
    expect(rows.find((r) => !r.exact)).toMatchObject({ control_id: 'ism-9999', status: 'pending', review_reason: 'unknown_control' });
    expect(rows.every((r) => /^"1-/.test(r.etag))).toBe(true);
    expect((await list('?page[size]=2&page[number]=2')).body.data).toHaveLength(2);

    expect((await post(file.id, 'assertions/confirm-exact', started.headers.get('etag'))).status).toBe(412);
    const confirmed = await post(file.id, 'assertions/confirm-exact', (await a.get(file.id)).headers.get('etag'));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toEqual({ artefact_id: file.id, confirmed: 3 });
    const after = (await list()).body.data as { exact: boolean; status: string }[];
    expect(after.map((r) => r.status).sort()).toEqual(['confirmed', 'confirmed', 'confirmed', 'pending']);
    const releaseUrl = `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}`;
    expect((await api.request('GET', releaseUrl, { token: op.admin })).body.data.counts).toMatchObject({ assertions: 4, confirmed_assertions: 3 });

    await publishRelease(provider.id, release.id);
    const again = confirmed.headers.get('etag');
    expect((await post(file.id, 'assertions/confirm-exact', again)).body.code).toBe('release_published');
    expect((await post(file.id, 'use-as-ccm', again)).body.code).toBe('release_published');
    expect((await a.get(file.id)).status).toBe(200);
  });

  it('confirms more exact assertions than one transaction holds', async () => {
    const { provider, release, a, post, ready } = await arrange();
    const file = await ready(csvBytes([HEADER, ...controls.slice(0, 100).map((id) => matrixRow(id, 'Provider'))]), 'ccm.csv', 'text/csv');
    await post(file.id, 'use-as-ccm', file.etag);
    await api.drainJobs();
    const confirmed = await post(file.id, 'assertions/confirm-exact', (await a.get(file.id)).headers.get('etag'));
    expect(confirmed.body.data).toEqual({ artefact_id: file.id, confirmed: 100 });
    const releaseUrl = `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}`;
    expect((await api.request('GET', releaseUrl, { token: op.admin })).body.data.counts).toMatchObject({ confirmed_assertions: 100 });
    expect(await releasesAsserting(controls[99]!)).toContainEqual({ provider_id: provider.id, release_id: release.id });
    expect((await post(file.id, 'assertions/confirm-exact', confirmed.headers.get('etag'))).body.data.confirmed).toBe(0);
  });

  it('needs publish-provider-assurance-packages', async () => {
    const { provider, post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    const hierarchyOnly = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy'] });
    const url = `/api/v1/external-providers/${provider.id}/artefacts/${file.id}/assertions`;
    expect((await api.request('GET', url, { token: hierarchyOnly })).status).toBe(403);
    expect((await post(file.id, 'assertions/confirm-exact', file.etag, hierarchyOnly)).status).toBe(403);
  });

  it('keeps the assertions of a restricted artefact a 404 without view-restricted-provider-artefacts', async () => {
    const { provider, post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv', { restricted: 'true' });
    const abilities = ['manage-org-hierarchy', 'publish-provider-assurance-packages'];
    const viewless = await fixtures.token(op.userId, 'administration', { abilities });
    const url = `/api/v1/external-providers/${provider.id}/artefacts/${file.id}/assertions`;
    expect((await api.request('GET', url, { token: viewless })).status).toBe(404);
    expect((await post(file.id, 'assertions/confirm-exact', file.etag, viewless)).status).toBe(404);
    expect((await api.request('GET', url, { token: op.admin })).status).toBe(200);
  });
});

async function publishRelease(providerId: string, releaseId: string) {
  const url = `/api/v1/external-providers/${providerId}/assurance-releases/${releaseId}`;
  const etag = (await api.request('GET', url, { token: op.admin })).headers.get('etag')!;
  const res = await api.request('POST', `${url}/publish`, { token: op.admin, body: {}, headers: { 'If-Match': etag } });
  if (res.status !== 200) throw new Error(`publish refused: ${res.status} ${JSON.stringify(res.body)}`);
}

describe('the sweep of stalled import runs', () => {
  it('queues again a run whose job was lost, and the import completes', async () => {
    const { a, post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    const started = await post(file.id, 'use-as-ccm', file.etag);
    await takeJobs('import');
    const { sweep } = await import('../../lib/jobs/sweep.js');
    expect((await sweep(new Date(Date.now() + DETECTION_SECONDS * 1000))).stalled_imports.requeued).toBeGreaterThanOrEqual(1);
    await api.drainJobs();
    expect((await a.get(file.id)).body.data.import).toMatchObject({ run_id: started.body.data.import.run_id, status: 'completed' });
  });

  it('ends a run whose every re-queued job was dead-lettered as failed (import_abandoned) on artefact detail, and lets a new import start', async () => {
    const { a, post, ready } = await arrange();
    const file = await ready(csvBytes(matrix()), 'ccm.csv', 'text/csv');
    const started = await post(file.id, 'use-as-ccm', file.etag);
    expect(started.status).toBe(202);
    const { sweep } = await import('../../lib/jobs/sweep.js');
    let at = new Date();
    for (let i = 0; i < MAX_REQUEUES; i++) {
      // Each job went to the dead-letter queue: nothing will run it.
      await takeJobs('import');
      at = new Date(at.getTime() + DETECTION_SECONDS * 1000);
      await sweep(at);
      expect((await a.get(file.id)).body.data.import).toMatchObject({ status: 'running' });
    }
    await takeJobs('import');
    expect((await sweep(new Date(at.getTime() + DETECTION_SECONDS * 1000))).stalled_imports.ended).toBeGreaterThanOrEqual(1);
    const detail = await a.get(file.id);
    expect(detail.body.data.import).toMatchObject({ run_id: started.body.data.import.run_id, status: 'failed', error_code: 'import_abandoned' });
    const again = await post(file.id, 'use-as-ccm', detail.headers.get('etag'));
    expect(again.status).toBe(202);
    await api.drainJobs();
    expect((await a.get(file.id)).body.data.import).toMatchObject({ run_id: again.body.data.import.run_id, status: 'completed' });
  });
});
