import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { assertionId } from '../../lib/domain/assertions.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { startApi, type Api } from '../support/api.js';
import { arrangeControls, controlsUrl } from '../support/controls.js';
import { documentsUrl } from '../support/documents.js';
import { ismExcerpt } from '../support/document-model.js';
import { form } from '../support/files.js';
import { csvBytes, HEADER, matrixRow, type MatrixTable } from '../support/matrices.js';
import { GENEROUS_BUDGETS, setupWorld, type World } from '../support/projects.js';
import { draftReleaseThroughApi, providerArtefacts } from '../support/provider-artefacts.js';
import { publishedReleaseAsserting } from '../support/providers.js';
import { traceDdb } from '../../lib/store/client.js';

/**
 * Issue 14 end to end: a provider's matrix goes from upload through review to publication, a
 * project selects the release, and its controls show the provider's guidance and `ec` where the
 * provider carries the control, while a status a person chose stays and deselection reverts `ec`.
 */

let api: Api;
let ism: Release;
let world: World;
/**
 * A populated PROTECTED project on real ISM controls, shared by the tests: a population is a write
 * per control, and every selection saved recalculates every control. Each test works on controls of
 * its own, and saves its selection on a project with none (a selection saved replaces the one
 * before), so no test sees another's.
 */
let shared: Awaited<ReturnType<typeof arrangeControls>>;
/** Controls (not principles) of the shared project, in catalogue order. */
let controls: string[];

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  // The tests take 28 PROTECTED controls of the first 60 (58 of which are PROTECTED), besides the principles.
  ism = await importRelease(ismExcerpt(60), { sample: false }, new Date());
  world = await setupWorld(api, ism);
  shared = await arrangeControls(api, world);
  const list = await api.request('GET', controlsUrl(shared.p.id, '?page[size]=100'), { token: shared.token });
  controls = list.body.data.filter((c: { kind: string }) => c.kind === 'control').map((c: { catalogue_id: string }) => c.catalogue_id);
});
afterAll(() => api.stop());

const PROVIDERS = '/api/v1/external-providers';

/** A matrix taken through the provider operations: upload, scan, use-as-ccm, confirm-exact, publish. */
async function publishedMatrix(rows: MatrixTable, options: { restricted?: boolean } = {}) {
  const admin = world.op.admin;
  const { provider_id: providerId, release_id: releaseId } = await draftReleaseThroughApi(api, admin, ism.id);
  const artefacts = providerArtefacts(api, providerId, admin);
  const fields = { release_id: releaseId, ...(options.restricted ? { restricted: 'true' } : {}) };
  const file = await artefacts.created(form(Buffer.from(csvBytes([HEADER, ...rows])), 'ccm.csv', 'text/csv', fields));
  await api.drainJobs();
  const artefactUrl = `${PROVIDERS}/${providerId}/artefacts/${file.id}`;
  const post = async (path: string) => {
    const etag = (await artefacts.get(file.id)).headers.get('etag')!;
    return api.request('POST', `${artefactUrl}/${path}`, { token: admin, body: {}, headers: { 'If-Match': etag } });
  };
  expect((await post('use-as-ccm')).status).toBe(202);
  await api.drainJobs();
  expect((await post('assertions/confirm-exact')).body.data.confirmed).toBe(rows.length);
  const releaseUrl = `${PROVIDERS}/${providerId}/assurance-releases/${releaseId}`;
  const etag = (await api.request('GET', releaseUrl, { token: admin })).headers.get('etag')!;
  expect((await api.request('POST', `${releaseUrl}/publish`, { token: admin, body: {}, headers: { 'If-Match': etag } })).status).toBe(200);
  return { provider_id: providerId, release_id: releaseId };
}

async function saveSelections(projectUrl: string, selections: { provider_id: string; release_id: string }[]) {
  const etag = (await api.request('GET', `${projectUrl}/scope`, { token: world.op.org })).headers.get('etag')!;
  const saved = await api.request('PATCH', `${projectUrl}/scope`, {
    token: world.op.org,
    headers: { 'If-Match': etag },
    body: { provider_selections: selections },
  });
  expect(saved.status).toBe(200);
}

async function select(projectUrl: string, selections: { provider_id: string; release_id: string }[]) {
  await saveSelections(projectUrl, selections);
  await api.drainJobs();
}

/** The shared project with no release selected. */
async function sharedWithoutSelection() {
  await select(shared.p.url, []);
  return shared;
}

describe('a selected provider release in a project', () => {
  it('shows provider_guidance, sets ec where the provider carries the control, keeps a chosen status, and deselection reverts', async () => {
    const [carried, withTenant, chosen, partial] = controls;
    const release = await publishedMatrix([
      matrixRow(carried!, 'Provider'),
      matrixRow(withTenant!, 'Shared'),
      matrixRow(chosen!, 'Provider'),
      matrixRow(partial!, 'Provider', 'Partially implemented'),
    ]);
    const c = await sharedWithoutSelection();
    expect((await c.patch(chosen!, { implementation_status: 'planned' })).status).toBe(200);

    await select(c.p.url, [release]);
    const guidanceOf = async (id: string) => (await c.read(id)).body.provider_guidance;
    expect((await c.read(carried!)).body).toMatchObject({ implementation_status: 'ec', implementation_status_origin: 'provider_assertion' });
    expect(await guidanceOf(carried!)).toEqual([
      {
        ...release,
        assertion_id: assertionId(release.release_id, carried!),
        responsibility: 'provider',
        implementation_status: 'implemented',
        guidance: `Tenants need do nothing further for ${carried}.`,
        guidance_truncated: false,
        restricted: false,
      },
    ]);
    expect((await c.read(withTenant!)).body).toMatchObject({ implementation_status: null, provider_guidance: [{ responsibility: 'shared' }] });
    expect((await c.read(partial!)).body).toMatchObject({
      implementation_status: null,
      provider_guidance: [{ implementation_status: 'partially_implemented' }],
    });
    expect((await c.read(chosen!)).body).toMatchObject({ implementation_status: 'planned', implementation_status_origin: 'explicit_user_choice' });
    expect(await guidanceOf(chosen!)).toHaveLength(1);
    const ec = await api.request('GET', controlsUrl(c.p.id, '?filter[implementation_status]=ec'), { token: c.token });
    expect(ec.body.data.map((x: { catalogue_id: string }) => x.catalogue_id)).toEqual([carried]);

    await select(c.p.url, []);
    expect((await c.read(carried!)).body).toMatchObject({ implementation_status: null, implementation_status_origin: null, provider_guidance: [] });
    expect((await c.read(chosen!)).body).toMatchObject({ implementation_status: 'planned', provider_guidance: [] });
  });

  it("leverages the selected release in the OSCAL SSP: the provider's authorization, and the control it carries inherited from its service", async () => {
    const [carried, withTenant] = controls.slice(4);
    const release = await publishedMatrix([matrixRow(carried!, 'Provider'), matrixRow(withTenant!, 'Shared')]);
    const c = await sharedWithoutSelection();
    await select(c.p.url, [release]);
    const started = await api.request('POST', documentsUrl(c.p.id, '/generation'), { token: c.token, body: { document_key: 'oscal-ssp' } });
    expect(started.status).toBe(202);
    await api.drainJobs();
    const download = await api.request('GET', documentsUrl(c.p.id, `/${started.body.data.document_id}/download`), { token: c.token });
    const plan = JSON.parse(download.bytes.toString('utf8'))['system-security-plan'];
    const provider = (await api.request('GET', `${PROVIDERS}/${release.provider_id}`, { token: world.op.admin })).body.data;
    expect(plan['system-implementation']['leveraged-authorizations']).toMatchObject([
      { title: `${provider.name}: IRAP 2026 2026.1`, 'date-authorized': '2026-02-01' },
    ]);
    const requirementOf = (id: string) =>
      plan['control-implementation']['implemented-requirements'].find((r: { 'control-id': string }) => r['control-id'] === id);
    const [own, service] = requirementOf(carried!)['by-components'];
    expect(own.inherited[0]).toMatchObject({
      description: `Tenants need do nothing further for ${carried}.`,
      'provided-uuid': service.export.provided[0].uuid,
    });
    expect(requirementOf(withTenant!)['by-components'][0].satisfied).toHaveLength(1);
  });

  it('keeps a status a person sets over ec, through deselection', async () => {
    const carried = controls[6];
    const release = await publishedMatrix([matrixRow(carried!, 'Provider')]);
    const c = await sharedWithoutSelection();
    await select(c.p.url, [release]);
    expect((await c.patch(carried!, { implementation_status: 'implemented' })).status).toBe(200);
    await select(c.p.url, []);
    expect((await c.read(carried!)).body).toMatchObject({ implementation_status: 'implemented', implementation_status_origin: 'explicit_user_choice' });
  });

  it('applies a selection saved before population when the controls are written', async () => {
    const [carried] = controls;
    const release = await publishedMatrix([matrixRow(carried!, 'Provider')]);
    const p = await world.project();
    await select(p.url, [release]);
    const etag = (await api.request('GET', p.url, { token: world.op.org })).headers.get('etag')!;
    expect((await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': etag }, body: {} })).status).toBe(202);
    await api.drainJobs();
    const token = await world.projectToken(p.id);
    const list = await api.request('GET', controlsUrl(p.id, '?filter[implementation_status]=ec'), { token });
    expect(list.body.data.map((x: { catalogue_id: string }) => x.catalogue_id)).toEqual([carried]);
  });

  it('shows guidance from a restricted artefact only to holders of view-restricted-provider-artefacts, under a different ETag', async () => {
    const carried = controls[7];
    const release = await publishedMatrix([matrixRow(carried!, 'Provider')], { restricted: true });
    const c = await sharedWithoutSelection();
    await select(c.p.url, [release]);
    const open = await c.read(carried!);
    expect(open.body.provider_guidance).toMatchObject([{ restricted: true }]);
    const without = await world.projectToken(
      c.p.id,
      permissionsOf('project').filter((p) => p !== 'view-restricted-provider-artefacts'),
    );
    const closed = await c.read(carried!, without);
    expect(closed.body).toMatchObject({ implementation_status: 'ec', provider_guidance: [] });
    expect(closed.etag).not.toBe(open.etag);
  });
});

/** The write requests of the recalculation a selection saved queues, by command, and the write units of its UpdateItems (the control writes). */
async function recalculationWrites(projectUrl: string, selections: { provider_id: string; release_id: string }[]) {
  await saveSelections(projectUrl, selections);
  const { calls } = await traceDdb(() => api.drainJobs());
  const writes = calls.filter((c) => /^(?:PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/.test(c.command));
  const byCommand: Record<string, number> = {};
  for (const c of writes) byCommand[c.command] = (byCommand[c.command] ?? 0) + 1;
  return { byCommand, updateUnits: writes.filter((c) => c.command === 'UpdateItem').map((c) => c.wcu) };
}

/**
 * What a selection change costs its recalculation (issue 25): one UpdateItem per control it
 * changes, carrying the status and guidance together, none for a control it leaves as it was;
 * the pass takes the marker's lease at its start (one UpdateItem of 2 units, what lets the sweep
 * see a dead worker), the summary and the filter digest are recounted once at the end (one
 * transaction), and the marker is cleared (one delete).
 */
describe('the writes of a selection change', () => {
  const N = 6;
  const ONCE_PER_PASS = { TransactWriteItems: 1, DeleteItem: 1, UpdateItem: 1 };
  const LEASE_UNITS = 2;
  /** A real ISM control item stays under 1 KB with a guidance entry, which names its assertion without copying its words: one unit per write. */
  const CONTROL_UNITS = 1;

  /** The controls each test of these has to itself. */
  let next = 10;

  async function selectedProject() {
    const carried = controls.slice(next, (next += N));
    const published = await publishedReleaseAsserting(ism.id, carried);
    const c = await sharedWithoutSelection();
    return { c, carried, release: { provider_id: published.provider_id, release_id: published.release_id } };
  }

  it('writes each control a selection changes once', async () => {
    const { c, carried, release } = await selectedProject();
    const { byCommand, updateUnits } = await recalculationWrites(c.p.url, [release]);
    expect(byCommand).toEqual({ ...ONCE_PER_PASS, UpdateItem: 1 + N });
    expect(updateUnits).toEqual([LEASE_UNITS, ...Array(N).fill(CONTROL_UNITS)]);
    for (const id of carried)
      expect((await c.read(id)).body).toMatchObject({ implementation_status: 'ec', provider_guidance: [{ release_id: release.release_id }] });
  });

  it('writes no control when the release is saved again, alone or beside a release that asserts none of them', async () => {
    const { c, release } = await selectedProject();
    await select(c.p.url, [release]);
    expect(await recalculationWrites(c.p.url, [release])).toEqual({ byCommand: {}, updateUnits: [] });
    const silent = await publishedReleaseAsserting(ism.id, []);
    const both = [release, { provider_id: silent.provider_id, release_id: silent.release_id }];
    expect(await recalculationWrites(c.p.url, both)).toEqual({ byCommand: ONCE_PER_PASS, updateUnits: [LEASE_UNITS] });
  });

  it('writes each control a deselection changes once', async () => {
    const { c, carried, release } = await selectedProject();
    await select(c.p.url, [release]);
    const { byCommand, updateUnits } = await recalculationWrites(c.p.url, []);
    expect(byCommand).toEqual({ ...ONCE_PER_PASS, UpdateItem: 1 + N });
    expect(updateUnits).toEqual([LEASE_UNITS, ...Array(N).fill(CONTROL_UNITS)]);
    for (const id of carried) expect((await c.read(id)).body).toMatchObject({ implementation_status: null, provider_guidance: [] });
  });
});
