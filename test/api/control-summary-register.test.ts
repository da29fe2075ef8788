import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import type { Api } from '../support/api.js';
import { arrangeControls, IMPLEMENTED } from '../support/controls.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

interface SummaryRow {
  id: string;
  data: { dimension: string; value: string; controls?: number };
  redacted_fields: string[];
}

const summaryUrl = (project: string, rest = '') => `/api/v1/projects/${project}/registers/${IDS.controlSummary}/rows${rest}`;

async function arrange() {
  const arranged = await arrangeControls(api, world);
  const list = async (as = arranged.token) => {
    const res = await api.request('GET', summaryUrl(arranged.p.id, '?page[size]=100'), { token: as });
    return { res, rows: res.body.data as SummaryRow[] };
  };
  const count = async (dimension: string, value: string) => (await list()).rows.find((r) => r.data.dimension === dimension && r.data.value === value)!;
  return { ...arranged, list, count };
}

describe('the control-summary register', () => {
  it('lists one row per dimension and value, each dimension counting every control, with an exact total', async () => {
    const { list, health } = await arrange();
    const { res, rows } = await list();
    const { controls, applicable } = (await health()).applicability_summary;
    expect(res.body.meta.total).toBe(rows.length);
    for (const dimension of ['applicability', 'implementation_status', 'workflow_state', 'assessment_outcome']) {
      const sum = rows.filter((r) => r.data.dimension === dimension).reduce((n, r) => n + r.data.controls!, 0);
      expect(sum).toBe(controls);
    }
    expect(rows.find((r) => r.data.dimension === 'applicability' && r.data.value === 'y')!.data.controls).toBe(applicable);
    expect(rows.find((r) => r.data.dimension === 'implementation_status' && r.data.value === 'not_set')!.data.controls).toBe(controls);
    expect(rows.find((r) => r.data.dimension === 'assessment_outcome' && r.data.value === 'not_assessed')!.data.controls).toBe(controls);
  });

  it('moves with a control edit, in the edit transaction', async () => {
    const { patch, count } = await arrange();
    const [implemented, unset] = [await count('implementation_status', 'implemented'), await count('implementation_status', 'not_set')];
    expect((await patch('sample-9001', IMPLEMENTED)).status).toBe(200);
    expect((await count('implementation_status', 'implemented')).data.controls).toBe(implemented.data.controls! + 1);
    expect((await count('implementation_status', 'not_set')).data.controls).toBe(unset.data.controls! - 1);
  });

  it('reads a row by its stable ID, whose ETag moves when the counts do', async () => {
    const { p, token, patch, count } = await arrange();
    const row = await count('implementation_status', 'implemented');
    const read = await api.request('GET', summaryUrl(p.id, `/${row.id}`), { token });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(row);
    await patch('sample-9001', IMPLEMENTED);
    const after = await api.request('GET', summaryUrl(p.id, `/${row.id}`), { token });
    expect(after.body.data.id).toBe(row.id);
    expect(after.headers.get('etag')).not.toBe(read.headers.get('etag'));
  });

  it('answers 404 for a row ID that is not one of its rows', async () => {
    const { p, token } = await arrange();
    expect((await api.request('GET', summaryUrl(p.id, `/${newUlid()}`), { token })).status).toBe(404);
  });

  it('redacts the counts without view-controls', async () => {
    const { p, list } = await arrange();
    const { rows } = await list(await world.projectToken(p.id, ['view-registers']));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.data.controls === undefined && r.redacted_fields.join() === 'controls')).toBe(true);
  });
});
