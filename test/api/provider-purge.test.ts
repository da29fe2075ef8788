import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { assertionId } from '../../lib/domain/assertions.js';
import { newImportRun } from '../../lib/domain/imports/run.js';
import { getObject } from '../../lib/files/storage.js';
import { startImportWrites } from '../../lib/store/imports.js';
import { keys } from '../../lib/store/keys.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { form, PDF } from '../support/files.js';
import { providerArtefacts } from '../support/provider-artefacts.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedAssertion, storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const providerUrl = (providerId: string) => `/api/v1/external-providers/${providerId}`;
const releaseUrl = (providerId: string, releaseId: string) => `${providerUrl(providerId)}/assurance-releases/${releaseId}`;
/** A control identifier no other test asserts, so that each test reads its own index partition. */
const freshControl = () => `ism-${newUlid().slice(-8).toLowerCase()}`;

async function remove(url: string) {
  const etag = (await api.request('GET', url, { token: op.admin })).headers.get('etag')!;
  const res = await api.request('DELETE', url, { token: op.admin, headers: { 'If-Match': etag } });
  expect(res.status).toBe(200);
}

/** Everything the provider's partition still holds. */
const partition = (providerId: string) =>
  queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK }, ConsistentRead: true });

/** A draft release with one confirmed and one pending assertion, and the import run of an artefact of it (deleted since: its run stays). */
async function assertedDraft(providerId: string) {
  const release = await storedRelease(providerId, { status: 'draft' });
  const [confirmed, pending] = [freshControl(), freshControl()];
  await storedAssertion(release, confirmed, 'confirmed');
  await storedAssertion(release, pending, 'pending');
  const run = newImportRun({
    run_id: newUlid(),
    provider_id: providerId,
    release_id: release.id,
    artefact_id: newUlid(),
    ism_version_id: release.ism_version_id,
    kind: 'ccm',
    started_by: op.userId,
    token_id: 'fixture',
    now: new Date(),
  });
  await commit([startImportWrites(run, undefined)]);
  return { release, confirmed, pending, run: keys.artefactImport(providerId, run.artefact_id) };
}

describe('deleting a draft assurance release', () => {
  it('removes its assertions, their control index items and its artefacts’ import runs once its purge job ran', async () => {
    const provider = await storedProvider();
    const { release, confirmed } = await assertedDraft(provider.id);
    await remove(releaseUrl(provider.id, release.id));
    await api.drainJobs();
    expect((await partition(provider.id)).map((i) => i.SK)).toEqual(['PROVIDER']);
    expect(await getOne(keys.controlAssertion(confirmed, provider.id, release.id))).toBeUndefined();
  });

  it('leaves the assertions of the provider\u2019s other releases alone', async () => {
    const provider = await storedProvider();
    const deleted = await assertedDraft(provider.id);
    const kept = await assertedDraft(provider.id);
    await remove(releaseUrl(provider.id, deleted.release.id));
    await api.drainJobs();
    expect(await getOne(keys.assertion(provider.id, assertionId(kept.release.id, kept.pending)))).toBeDefined();
    expect(await getOne(keys.controlAssertion(kept.confirmed, provider.id, kept.release.id))).toBeDefined();
    expect(await getOne(kept.run)).toBeDefined();
    expect(await getOne(deleted.run)).toBeUndefined();
  });
});

describe('deleting a provider', () => {
  it('removes everything its partition held (assertions of every release, index items, import runs) once its purge job ran', async () => {
    const provider = await storedProvider();
    const draft = await assertedDraft(provider.id);
    const published = await storedRelease(provider.id);
    const control = freshControl();
    await storedAssertion(published, control, 'confirmed');
    await remove(providerUrl(provider.id));
    await api.drainJobs();
    expect(await partition(provider.id)).toEqual([]);
    expect(await getOne(keys.controlAssertion(control, provider.id, published.id))).toBeUndefined();
    expect(await getOne(keys.controlAssertion(draft.confirmed, provider.id, draft.release.id))).toBeUndefined();
  });

  it('deletes the released files of its deleted artefacts and their upload records', async () => {
    const provider = await storedProvider();
    const a = providerArtefacts(api, provider.id, op.admin);
    const made = await a.created(form(PDF, 'report.pdf', 'application/pdf'));
    await api.drainJobs();
    const stored = await getOne(keys.providerArtefact(provider.id, made.id));
    const upload = (await getOne(keys.upload(String(stored?.upload_id))))!;
    expect(String(upload.s3_key)).toMatch(/^files\//);
    expect(await getObject(String(upload.s3_key))).toBeDefined();
    await a.remove(made.id, (await a.get(made.id)).headers.get('etag')!);
    await remove(providerUrl(provider.id));
    await api.drainJobs();
    expect(await getObject(String(upload.s3_key))).toBeUndefined();
    expect(await getOne(keys.upload(String(upload.id)))).toBeUndefined();
  });

  it('keeps its published releases out of options by control_id at once, before its purge job ran', async () => {
    const provider = await storedProvider();
    const published = await storedRelease(provider.id);
    const control = freshControl();
    await storedAssertion(published, control, 'confirmed');
    const options = () => api.request('GET', `/api/v1/external-providers/options?control_id=${control}`, { token: op.admin });
    expect((await options()).body.meta.total).toBe(1);
    await remove(providerUrl(provider.id));
    expect((await options()).body).toMatchObject({ data: [], meta: { total: 0 } });
    await api.drainJobs();
    expect((await options()).body).toMatchObject({ data: [], meta: { total: 0 } });
  });
});

describe('the sweep', () => {
  it('queues again the purge of a deletion whose job was lost', async () => {
    const provider = await storedProvider();
    const { release } = await assertedDraft(provider.id);
    await remove(releaseUrl(provider.id, release.id));
    const { DeleteMessageCommand, ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const { sqs } = await import('../../lib/queues/sqs.js');
    const { queueUrl } = await import('../../lib/queues/queues.js');
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl('purge'), MaxNumberOfMessages: 10 }));
    for (const m of received.Messages ?? []) await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl('purge'), ReceiptHandle: m.ReceiptHandle! }));
    const { sweep } = await import('../../lib/jobs/sweep.js');
    expect((await sweep(new Date(Date.now() + 600_000))).requeued_purges).toBeGreaterThanOrEqual(1);
    await api.drainJobs();
    expect((await partition(provider.id)).map((i) => i.SK)).toEqual(['PROVIDER']);
  });
});
