import { newUlid } from '../../lib/domain/ids.js';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../../lib/catalogue/files.js';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures, startApi, type Api } from './api.js';
import { storedProvider, storedRelease } from './providers.js';

/** Setup tests make many writes with one credential in a minute; the budgets themselves are tested elsewhere. */
export const GENEROUS_BUDGETS = Object.fromEntries(
  [
    'API_READ_RATE_LIMIT_PER_MINUTE',
    'API_ACTOR_READ_RATE_LIMIT_PER_MINUTE',
    'API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE',
    'API_MUTATION_RATE_LIMIT_PER_MINUTE',
    'API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE',
    'API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE',
  ].map((name) => [name, '100000']),
);

export const importSample = (): Promise<Release> => importRelease(readReleaseDirectory(SAMPLE_CATALOGUE_DIR), { sample: true }, new Date());

/** A published assurance release of a live shared provider, as the provider operations write it. */
export async function publishedRelease(): Promise<{ provider_id: string; release_id: string }> {
  const provider = await storedProvider();
  const release = await storedRelease(provider.id);
  return { provider_id: provider.id, release_id: release.id };
}

/** The sample catalogue: 31 entries, 28 of them tagged PROTECTED. */
export const SAMPLE_PROTECTED = 28;

export type World = Awaited<ReturnType<typeof setupWorld>>;

/** The API (jobs run on demand), the sample catalogue and a world to create projects in: what project tests start from. */
export async function startProjectWorld(overrides: Record<string, string> = {}): Promise<{ api: Api; release: Release; world: World }> {
  const api = await startApi({ ...GENEROUS_BUDGETS, ...overrides }, { jobs: 'manual' });
  const release = await importSample();
  return { api, release, world: await setupWorld(api, release) };
}

/** An operator with a system, and helpers to create and populate projects through the API. */
export async function setupWorld(api: Api, release: Release) {
  const op = await fixtures.operator();
  const systemId = await fixtures.system(op.organisationId);
  const base = `/api/v1/organisations/${op.organisationId}/systems/${systemId}/projects`;
  const create = (body: Record<string, unknown> = {}, key = newUlid()) =>
    api.request('POST', base, {
      token: op.org,
      headers: { 'Idempotency-Key': key },
      body: { name: 'Assessment 2026', ism_release_id: release.id, classification: 'P', ...body },
    });
  async function project(body: Record<string, unknown> = {}) {
    const res = await create(body);
    if (res.status !== 201) throw new Error(`project not created: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.data.id as string, url: `${base}/${res.body.data.id}`, etag: res.headers.get('etag')! };
  }
  /** A populated project; a scope given is saved first, so that population recommends from it. */
  async function populated(body: Record<string, unknown> = {}, scope?: Record<string, unknown>) {
    const p = await project(body);
    let etag = p.etag;
    if (scope) {
      const saved = await api.request('GET', `${p.url}/scope`, { token: op.org });
      await api.request('PATCH', `${p.url}/scope`, { token: op.org, headers: { 'If-Match': saved.headers.get('etag')! }, body: { data: scope } });
      etag = (await api.request('GET', p.url, { token: op.org })).headers.get('etag')!;
    }
    const started = await api.request('POST', `${p.url}/population`, { token: op.org, headers: { 'If-Match': etag }, body: {} });
    if (started.status !== 202) throw new Error(`population not started: ${started.status}`);
    await api.drainJobs();
    // A population the drain left unfinished shows up here, with the run's state, rather than as a 409 in a later request.
    const run = await getOne(keys.projectPopulation(p.id));
    if (run?.status !== 'completed') throw new Error(`population not completed after the drain: ${JSON.stringify(run)}`);
    return p;
  }
  /** A project credential on the project, with every project permission (or the given ones) selected and held. */
  async function projectToken(projectId: string, abilities = permissionsOf('project')) {
    await fixtures.grant(op.userId, { kind: 'project', id: projectId }, permissionsOf('project'));
    return fixtures.token(op.userId, 'project', { projectId, abilities });
  }
  return { op, systemId, base, create, project, populated, projectToken };
}
