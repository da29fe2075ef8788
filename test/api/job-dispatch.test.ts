import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { newUlid } from '../../lib/domain/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { releaseEntries } from '../../lib/store/catalogue-entries.js';
import { ismExcerpt } from '../support/document-model.js';
import { startPollers } from '../../lib/jobs/local.js';
import { QUEUES, queueUrl, type QueueName } from '../../lib/queues/queues.js';
import { sqs } from '../../lib/queues/sqs.js';
import { projectApplicability } from '../../lib/store/controls.js';
import { keys } from '../../lib/store/keys.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { fixtures, type Api } from '../support/api.js';
import { arrangeDocuments } from '../support/documents.js';
import { form, png } from '../support/files.js';
import { csvBytes, matrixRow, titledMatrix } from '../support/matrices.js';
import { providerArtefacts } from '../support/provider-artefacts.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';
import { storedProvider, storedRelease } from '../support/providers.js';
import { interceptAws } from '../support/aws-faults.js';

/**
 * The runtime dies after a request committed its job record and before the job's message is
 * worked: either before its stream was read, or after the message went to the in-memory local
 * queue, which a restart empties. A restarted runtime reads the stream from the position it kept
 * and runs the job to an end, once; a later replay of the whole stream changes nothing more.
 */
let api: Api;
let release: Release;
let world: World;
let dataDir: string;

beforeAll(async () => {
  ({ api, release, world } = await startProjectWorld());
  dataDir = mkdtempSync(join(tmpdir(), 'aop-dispatch-'));
});
afterAll(async () => {
  await api.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const position = () => join(dataDir, 'stream-position.json');

/** Controls of the real ISM release, imported once for the file: the tests that use them only read them. */
let ismImport: Promise<Release> | undefined;
const ismOnce = () => (ismImport ??= importRelease(ismExcerpt(2), { sample: false }, new Date()));

/** What a restart of the local SQS emulator does to messages nobody has worked yet. */
async function loseQueuedMessages(): Promise<void> {
  for (const name of Object.keys(QUEUES) as QueueName[]) {
    for (;;) {
      const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl(name), MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      if (!out.Messages?.length) break;
      for (const m of out.Messages) await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl(name), ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}

type Crash = 'before the stream is read' | 'after the message is queued';

/**
 * Runs `request` in a runtime that then dies at `crash`, restarts one from the kept position and
 * lets it work; then replays the whole stream in another, which must find nothing left to do.
 */
async function acknowledgedThenCrashed(crash: Crash, request: () => Promise<void>, outcome: () => Promise<unknown>) {
  // Earlier work of this file's table has run to an end: the kept position starts after it.
  const settled = await startPollers({ manual: true, streamPosition: position() });
  await settled.drain();
  await settled.stop();

  const first = await startPollers({ manual: true, streamPosition: position() });
  await request();
  if (crash === 'after the message is queued') expect(await first.dispatch()).toBeGreaterThan(0);
  await first.stop();
  await loseQueuedMessages();

  const restarted = await startPollers({ manual: true, streamPosition: position() });
  await restarted.drain();
  await restarted.stop();
  const done = await outcome();

  const replay = await startPollers({ manual: true });
  await replay.drain();
  await replay.stop();
  expect(await outcome()).toEqual(done);
  return done;
}

const crashes: Crash[] = ['before the stream is read', 'after the message is queued'];

describe.each(crashes)('a crash %s', (crash) => {
  it('still scans an acknowledged upload, once', async () => {
    const op = await fixtures.operator();
    const url = `/api/v1/organisations/${op.organisationId}/logo`;
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        const etag = (await api.request('GET', url, { token: op.org })).headers.get('etag')!;
        const headers = { 'Idempotency-Key': newUlid(), 'If-Match': etag };
        const res = await api.request('POST', url, { token: op.org, form: form(png(40, 20), 'logo.png'), headers });
        expect(res.status).toBe(201);
      },
      async () => {
        const logo = await getOne(keys.organisationLogo(op.organisationId));
        return { logo: { status: logo?.file_status, version: logo?.version }, upload: await getOne(keys.upload(String(logo?.upload_id))) };
      },
    );
    // The logo moved once, from quarantine to ready, by one scan.
    expect(done).toMatchObject({
      logo: { status: 'ready', version: 2 },
      upload: { status: 'ready', error_code: null, s3_key: expect.stringMatching(/^files\//) },
    });
  });

  it('still populates an acknowledged run, once', async () => {
    const p = await world.project();
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        expect((await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} })).status).toBe(202);
      },
      async () => ({
        run: (await api.request('GET', `${p.url}/population`, { token: world.op.org })).body.data,
        controls: (await projectApplicability(p.id)).length,
      }),
    );
    expect(done).toMatchObject({ run: { status: 'completed', progress: { created: SAMPLE_PROTECTED } }, controls: SAMPLE_PROTECTED });
  });

  it('still generates an acknowledged document, once', async () => {
    const d = await arrangeDocuments(api, world);
    let id = '';
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        const started = await d.generate('controls-json');
        expect(started.status).toBe(202);
        id = started.body.data.document_id;
      },
      async () => getOne(keys.document(d.p.id, id)),
    );
    // Written three times: queued by the request, running and completed by one delivery.
    expect(done).toMatchObject({ version: 3, generation: { status: 'completed' }, output: { output: 'draft' } });
  });

  it('still recalculates after an acknowledged scope change, once', async () => {
    const p = await world.populated();
    const scope = `${p.url}/scope`;
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        const etag = (await api.request('GET', scope, { token: world.op.org })).headers.get('etag')!;
        const res = await api.request('PATCH', scope, { token: world.op.org, headers: { 'If-Match': etag }, body: { data: { email_services: 'no' } } });
        expect(res.status).toBe(200);
      },
      async () => ({
        health: (await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.recalculation.status,
        marker: await getOne(keys.projectRecalculation(p.id)),
        summary: await getOne(keys.projectSummary(p.id)),
      }),
    );
    expect(done).toMatchObject({ health: 'idle', marker: undefined });
  });

  it('still imports an acknowledged artefact, once', async () => {
    const ism = await ismOnce();
    const controls = (await releaseEntries(ism.id)).filter((e) => e.kind === 'control').map((e) => e.id);
    const provider = await storedProvider();
    const draft = await storedRelease(provider.id, { ismVersionId: ism.id, status: 'draft' });
    const a = providerArtefacts(api, provider.id, world.op.admin);
    const made = await a.created(
      form(Buffer.from(csvBytes(titledMatrix([matrixRow(controls[0]!, 'CSP'), matrixRow(controls[1]!, 'Shared')]))), 'ccm.csv', 'text/csv', {
        release_id: draft.id,
      }),
    );
    await api.drainJobs();
    const etag = (await a.get(made.id)).headers.get('etag')!;
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        const url = `/api/v1/external-providers/${provider.id}/artefacts/${made.id}/use-as-ccm`;
        expect((await api.request('POST', url, { token: world.op.admin, body: {}, headers: { 'If-Match': etag } })).status).toBe(202);
      },
      async () => ({
        run: (await a.get(made.id)).body.data.import,
        assertions: await queryAll({
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :a)',
          ExpressionAttributeValues: { ':pk': keys.externalProvider(provider.id).PK, ':a': 'ASSERTION#' },
          ConsistentRead: true,
        }),
      }),
    );
    expect(done).toMatchObject({ run: { status: 'completed', progress: { rows: 2, written: 2 } }, assertions: { length: 2 } });
  });

  it('still purges an acknowledged provider deletion, once', async () => {
    const provider = await storedProvider();
    await storedRelease(provider.id, { ismVersionId: release.id });
    const url = `/api/v1/external-providers/${provider.id}`;
    const partition = () =>
      queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.externalProvider(provider.id).PK }, ConsistentRead: true });
    const done = await acknowledgedThenCrashed(
      crash,
      async () => {
        const etag = (await api.request('GET', url, { token: world.op.admin })).headers.get('etag')!;
        expect((await api.request('DELETE', url, { token: world.op.admin, headers: { 'If-Match': etag } })).status).toBe(200);
        expect((await partition()).length).toBeGreaterThan(0);
      },
      partition,
    );
    expect(done).toEqual([]);
  });
});

describe('a drain', () => {
  it('sends again a job the stream could not send, and ends once that job has run', async () => {
    // Earlier jobs of this file's table have been sent: the one refused is the population's.
    await api.drainJobs();
    let refused = 0;
    const release = await interceptAws(async (request, send) => {
      if (request.command === 'SendMessage' && refused === 0) {
        refused += 1;
        throw new Error('queue unavailable');
      }
      return send();
    });
    try {
      const p = await world.project();
      expect((await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} })).status).toBe(202);
      await api.drainJobs();
      expect(refused).toBe(1);
      expect((await api.request('GET', `${p.url}/population`, { token: world.op.org })).body.data).toMatchObject({ status: 'completed' });
    } finally {
      release();
    }
  });

  it('ends only once the job a background poller received first has ended', async () => {
    const settled = await startPollers({ manual: true, streamPosition: position() });
    await settled.drain();
    await settled.stop();
    const background = await startPollers({ streamPosition: position() });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const inJob = new Promise<void>((resolve) => (entered = resolve));
    // The population worker's first write takes the run's lease: held there, the background poller's delivery is under way.
    const release = await interceptAws(async (request, send) => {
      if (request.command === 'UpdateItem' && Object.values(request.input.ExpressionAttributeNames ?? {}).includes('worker_started_at')) {
        entered();
        await gate;
      }
      return send();
    });
    try {
      const p = await world.project();
      expect((await api.request('POST', `${p.url}/population`, { token: world.op.org, headers: { 'If-Match': p.etag }, body: {} })).status).toBe(202);
      await inJob;
      const order: string[] = [];
      const drained = background.drain().then(() => order.push('drained'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push('job let go');
      open();
      await drained;
      expect(order).toEqual(['job let go', 'drained']);
      expect((await api.request('GET', `${p.url}/population`, { token: world.op.org })).body.data).toMatchObject({ status: 'completed' });
    } finally {
      open();
      release();
      await background.stop();
    }
  });
});
