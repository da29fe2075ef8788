import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { DIGEST_SHARDS, digestKeys, positionCode } from '../../lib/store/control-filters.js';
import { recountProject } from '../../lib/store/controls.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import type { Api } from '../support/api.js';
import { arrangeControls, controlsUrl as url, IMPLEMENTED } from '../support/controls.js';
import { SAMPLE_PROTECTED, startProjectWorld, type World } from '../support/projects.js';

/*
 * Filtered lists are answered from the control index and the filter digest, not from the
 * controls: these tests hold their results and totals to what the controls themselves say.
 */

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

interface Listed {
  id: string;
  catalogue_id: string;
  label: string;
  title: string;
  essential_eight: string[];
  applicability: string;
  implementation_status: string | null;
  workflow_state: string;
}

const FILTERS: [string, (c: Listed) => boolean][] = [
  ...['editing', 'ready_for_assessment', 'assessed'].map((s): [string, (c: Listed) => boolean] => [
    `filter[workflow_state]=${s}`,
    (c) => c.workflow_state === s,
  ]),
  ...['y', 'n'].map((a): [string, (c: Listed) => boolean] => [`filter[applicability]=${a}`, (c) => c.applicability === a]),
  ...['implemented', 'planned', 'not_set'].map((s): [string, (c: Listed) => boolean] => [
    `filter[implementation_status]=${s}`,
    (c) => (c.implementation_status ?? 'not_set') === s,
  ]),
  ...['ML1', 'ML2', 'ML3'].map((l): [string, (c: Listed) => boolean] => [`filter[essential_eight]=${l}`, (c) => c.essential_eight.includes(l)]),
  ...['sample-902', 'GOV', 'pro-01', 'nothing-matches'].map((q): [string, (c: Listed) => boolean] => [
    `filter[q]=${q}`,
    (c) => [c.catalogue_id, c.label, c.title].some((t) => t.toLowerCase().includes(q.toLowerCase())),
  ]),
  [
    'filter[workflow_state]=editing&filter[implementation_status]=not_set&filter[essential_eight]=ML2',
    (c) => c.workflow_state === 'editing' && !c.implementation_status && c.essential_eight.includes('ML2'),
  ],
];

/** Every filter's ids and total, against the unfiltered list filtered here. */
async function expectExactFilters(projectId: string, token: string): Promise<void> {
  const all = (await api.request('GET', url(projectId, '?page[size]=100'), { token })).body.data as Listed[];
  expect(all).toHaveLength(SAMPLE_PROTECTED);
  for (const [query, test] of FILTERS) {
    const res = await api.request('GET', url(projectId, `?page[size]=100&${query}`), { token });
    const expected = all.filter(test).map((c) => c.catalogue_id);
    expect(
      res.body.data.map((c: Listed) => c.catalogue_id),
      query,
    ).toEqual(expected);
    expect(res.body.meta.total, query).toBe(expected.length);
  }
}

describe('filtered control lists', () => {
  it('stay exact after edits and transitions', async () => {
    const { p, token, patch, transition } = await arrangeControls(api, world);
    expect((await patch('sample-9013', IMPLEMENTED)).status).toBe(200);
    expect((await patch('sample-9002', { implementation_status: 'planned' })).status).toBe(200);
    expect((await patch('sample-9003', { applicability: 'n', applicability_comment: 'Not operated here.' })).status).toBe(200);
    expect((await transition('sample-9013', { transition: 'editing_to_ready_for_assessment' })).status).toBe(200);
    expect((await patch('sample-9002', { implementation_status: 'implemented' })).status).toBe(200);
    expect((await patch('sample-9003', { applicability: 'y' })).status).toBe(200);
    await expectExactFilters(p.id, token);
  });

  it('stay exact after concurrent edits of different controls', async () => {
    const { p, token, patch } = await arrangeControls(api, world);
    const edited = ['sample-9001', 'sample-9004', 'sample-9005', 'sample-9006', 'sample-9007', 'sample-9010'];
    const answers = await Promise.all(
      edited.map((c, i) => patch(c, i % 2 ? IMPLEMENTED : { implementation_status: 'planned', applicability: 'n', applicability_comment: 'Out of scope.' })),
    );
    expect(answers.map((r) => r.status)).toEqual(edited.map(() => 200));
    await expectExactFilters(p.id, token);
  });

  it('stay exact when edits land during a recount', async () => {
    const { p, token, patch } = await arrangeControls(api, world);
    const edited = ['sample-9002', 'sample-9005', 'sample-9011', 'sample-9013'];
    const [, ...answers] = await Promise.all([recountProject(p.id, new Date()), ...edited.map((c) => patch(c, IMPLEMENTED))]);
    expect(answers.map((r) => r.status)).toEqual(edited.map(() => 200));
    await expectExactFilters(p.id, token);
  });

  it('stay exact after a recalculation changes applicability', async () => {
    const { p, token } = await arrangeControls(api, world);
    const scope = await api.request('GET', `${p.url}/scope`, { token: world.op.org });
    const saved = await api.request('PATCH', `${p.url}/scope`, {
      token: world.op.org,
      headers: { 'If-Match': scope.headers.get('etag')! },
      body: { data: { wireless_networks: 'no' } },
    });
    expect(saved.status).toBe(200);
    await api.drainJobs();
    const excluded = await api.request('GET', url(p.id, '?filter[applicability]=n'), { token });
    expect(excluded.body.meta.total).toBeGreaterThan(0);
    await expectExactFilters(p.id, token);
  });

  it('page a filtered list with its exact total', async () => {
    const { p, token } = await arrangeControls(api, world);
    const all = (await api.request('GET', url(p.id, '?page[size]=100&filter[workflow_state]=editing'), { token })).body.data as Listed[];
    const second = await api.request('GET', url(p.id, '?filter[workflow_state]=editing&page[size]=4&page[number]=2'), { token });
    expect(second.body.data.map((c: Listed) => c.id)).toEqual(all.slice(4, 8).map((c) => c.id));
    expect(second.body.meta.total).toBe(SAMPLE_PROTECTED);
  });

  it('answer from the digest, not from the controls', async () => {
    const { p, token, idOf } = await arrangeControls(api, world);
    const control = await getOne(keys.control(p.id, idOf('sample-9004')));
    // Written behind the API's back: only a list that reads the digest can see it.
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.projectControlFilters(p.id, Number(control!.position) % DIGEST_SHARDS),
        UpdateExpression: 'ADD #s :p',
        ExpressionAttributeNames: { '#s': 's:assessed' },
        ExpressionAttributeValues: { ':p': new Set([positionCode(Number(control!.position))]) },
      }),
    );
    const res = await api.request('GET', url(p.id, '?filter[workflow_state]=assessed'), { token });
    expect(res.body.data.map((c: Listed) => c.catalogue_id)).toEqual(['sample-9004']);
    expect(res.body.meta.total).toBe(1);
  });

  it('read every control once for a project without a digest, until its recount', async () => {
    const { p, token, patch } = await arrangeControls(api, world);
    for (const Key of digestKeys(p.id)) await ddb().send(new DeleteCommand({ TableName: tableName(), Key }));
    // A write to a project without a digest leaves a partial shard, which lists must not trust.
    expect((await patch('sample-9013', IMPLEMENTED)).status).toBe(200);
    await expectExactFilters(p.id, token);
  });
});
