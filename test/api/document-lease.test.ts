import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { ddb } from '../../lib/store/client.js';
import { revokeAccess } from '../../lib/store/identity.js';
import { fixtures, type Api } from '../support/api.js';
import { arrangeDocuments } from '../support/documents.js';
import { startProjectWorld, type World } from '../support/projects.js';

/** What the predicates read of a transaction's writes. */
type Write = { kind: 'put' | 'update' | 'delete' | 'check'; key?: { SK: string } };

/** A generation worker killed at a chosen transaction: it never returns, so nothing after it runs, as when its process dies. */
const death = { at: undefined as undefined | ((writes: Write[]) => boolean), reached: () => {} };

type TransactItem = { Put?: unknown; Update?: { Key: object }; Delete?: { Key: object }; ConditionCheck?: { Key: object } };

function writesOf(items: TransactItem[]): Write[] {
  return items.map(({ Update, Delete, ConditionCheck }) => {
    const [kind, target] = Update
      ? (['update', Update] as const)
      : Delete
        ? (['delete', Delete] as const)
        : ConditionCheck
          ? (['check', ConditionCheck] as const)
          : (['put', undefined] as const);
    return { kind, key: target && (unmarshall(target.Key as Parameters<typeof unmarshall>[0]) as { SK: string }) };
  });
}

let api: Api;
let world: World;

const LEASE_SECONDS = 2;

beforeAll(async () => {
  ({ api, world } = await startProjectWorld({ GENERATION_LEASE_SECONDS: String(LEASE_SECONDS) }));
  // The client's own middleware, not a mocked module: the test files of a worker share its modules (vitest.config.ts).
  ddb().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || !death.at?.(writesOf((args.input as { TransactItems: TransactItem[] }).TransactItems)))
        return next(args);
      death.at = undefined;
      death.reached();
      return new Promise<never>(() => {});
    },
    { step: 'build', name: 'killGenerationWorker' },
  );
});

afterAll(() => api.stop());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the project generation lease', () => {
  it('lets one of two simultaneous generations start and answers the other 409 generation_in_progress', async () => {
    const d = await arrangeDocuments(api, world);
    const answers = await Promise.all([d.generate('controls-json'), d.generate('soa')]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(answers.find((r) => r.status === 409)!.body.code).toBe('generation_in_progress');
    await api.drainJobs();
    const list = (await api.request('GET', d.url(), { token: d.token })).body.data;
    expect(list.documents).toHaveLength(1);
  });

  it('is released by the worker, so the next generation starts', async () => {
    const d = await arrangeDocuments(api, world);
    expect((await d.generate('controls-json')).status).toBe(202);
    await api.drainJobs();
    expect((await d.generate('soa')).status).toBe(202);
    await api.drainJobs();
  });

  it('expires when its worker never finishes: the generation reads as abandoned and the next one starts', async () => {
    const d = await arrangeDocuments(api, world);
    const crashed = (await d.generate('controls-json')).body.data.document_id;
    expect((await d.generate('soa')).status).toBe(409);
    await pause(LEASE_SECONDS * 1000 + 200);
    expect((await d.poll(crashed)).body.data).toMatchObject({ status: 'failed', error_code: 'generation_abandoned' });
    const next = await d.generate('soa');
    expect(next.status).toBe(202);
    // The crashed generation's message, delivered late, finds its lease gone and renders nothing.
    await api.drainJobs();
    expect((await d.get(crashed)).body.data).toMatchObject({ status: 'failed', output: null, generation: { error_code: 'generation_abandoned' } });
    expect((await d.get(next.body.data.document_id)).body.data.status).toBe('ready');
  });

  it('stops a generation whose requester lost access before it ran: failed authorisation_lost, nothing stored, the lease released', async () => {
    const d = await arrangeDocuments(api, world);
    const id = (await d.generate('controls-json')).body.data.document_id;
    await revokeAccess(world.op.userId, { kind: 'project', id: d.p.id });
    await api.drainJobs();
    await fixtures.grant(world.op.userId, { kind: 'project', id: d.p.id }, permissionsOf('project'));
    expect((await d.get(id)).body.data).toMatchObject({ status: 'failed', output: null, generation: { error_code: 'authorisation_lost' } });
    expect((await d.generate('soa')).status).toBe(202);
  });
});

/** Runs the queued jobs until the generation worker reaches the commit `when` picks, and leaves it dead there. */
async function killedAt(when: (writes: Write[]) => boolean): Promise<void> {
  const reached = new Promise<void>((resolve) => {
    death.reached = resolve;
  });
  death.at = when;
  void api.drainJobs();
  await reached;
}

describe('a generation whose worker died', () => {
  it('mid-way reads running, then failed generation_abandoned once the worker\u2019s lease has run out, and a retry is accepted and completes once', async () => {
    const d = await arrangeDocuments(api, world);
    const crashed = (await d.generate('controls-json')).body.data.document_id;
    // The worker's next write after marking the generation running renews its lease before rendering: it dies there.
    let commits = 0;
    await killedAt((writes) => writes.some((w) => w.key?.SK === 'GENERATION#LEASE') && ++commits === 2);
    expect((await d.poll(crashed)).body.data).toMatchObject({ status: 'running' });
    await pause(LEASE_SECONDS * 1000 + 200);
    expect((await d.poll(crashed)).body.data).toMatchObject({ status: 'failed', error_code: 'generation_abandoned' });
    const retry = await d.regenerate(crashed);
    expect(retry.status).toBe(202);
    await api.drainJobs();
    expect((await d.get(crashed)).body.data).toMatchObject({ status: 'ready', generation: { status: 'completed' } });
  });

  it('after rendering and before its final write leaves one output: the retry\u2019s', async () => {
    const d = await arrangeDocuments(api, world);
    const crashed = (await d.generate('soa')).body.data.document_id;
    // The completing transaction: the output on its row, and the lease released.
    await killedAt((writes) => writes.some((w) => w.key?.SK === 'GENERATION#LEASE' && w.kind === 'delete'));
    await pause(LEASE_SECONDS * 1000 + 200);
    expect((await d.poll(crashed)).body.data).toMatchObject({ status: 'failed', error_code: 'generation_abandoned' });
    expect((await d.regenerate(crashed)).status).toBe(202);
    await api.drainJobs();
    const shown = (await d.get(crashed)).body.data;
    expect(shown).toMatchObject({ status: 'ready', generation: { status: 'completed' } });
    expect((await d.download(crashed)).status).toBe(200);
  });
});
