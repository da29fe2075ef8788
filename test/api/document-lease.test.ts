import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { revokeAccess } from '../../lib/store/identity.js';
import { fixtures, type Api } from '../support/api.js';
import { arrangeDocuments } from '../support/documents.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

const LEASE_SECONDS = 2;

beforeAll(async () => ({ api, world } = await startProjectWorld({ GENERATION_LEASE_SECONDS: String(LEASE_SECONDS) })));
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
