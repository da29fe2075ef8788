import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_DEFINITION_IDS, LIBRARY_DEFINITIONS } from '../../lib/domain/library-definitions.js';
import { REGISTER_DEFINITION_IDS, REGISTER_DEFINITIONS } from '../../lib/domain/registers.js';
import type { Api } from '../support/api.js';
import { controlsUrl } from '../support/controls.js';
import { arrangeEvidence, repositoryConnection } from '../support/evidence.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = async () => {
  const a = await arrangeEvidence(api, world);
  const options = async (query = '', token = a.token) => api.request('GET', a.evidenceUrl(`/link-options${query}`), { token });
  return { ...a, options };
};

describe('listEvidenceLinkOptions', () => {
  it("lists the ready files of the project's other controls, by control in catalogue order, then oldest first", async () => {
    const a = await arrange();
    const later = await a.upload('sample-9003', { title: 'Backup log', file_name: 'backup.csv', detected_type: 'text/csv', size: 99 });
    const first = await a.upload('sample-9002');
    await a.upload('sample-9001');
    await a.upload('sample-9002', { file_status: 'quarantine' });
    await a.upload('sample-9002', { file_status: 'error' });
    await a.reference();
    const res = await a.options();
    expect(res.status).toBe(200);
    expect(res.body.data.files).toEqual({
      items: [
        {
          control_id: first.control_id,
          evidence_id: first.id,
          title: first.title,
          file_name: first.file_name,
          size: first.size,
          content_type: 'application/pdf',
          linked: false,
        },
        {
          control_id: later.control_id,
          evidence_id: later.id,
          title: 'Backup log',
          file_name: 'backup.csv',
          size: 99,
          content_type: 'text/csv',
          linked: false,
        },
      ],
      page_number: 1,
      page_size: 50,
      has_more: false,
    });
  });

  it('pages the files with page[number] and page[size], saying whether more follow', async () => {
    const a = await arrange();
    const files = [await a.upload('sample-9002'), await a.upload('sample-9002'), await a.upload('sample-9003')];
    const one = await a.options('?page[size]=2');
    expect(one.body.data.files.items.map((f: { evidence_id: string }) => f.evidence_id)).toEqual([files[0]!.id, files[1]!.id]);
    expect(one.body.data.files.has_more).toBe(true);
    const two = await a.options('?page[number]=2&page[size]=2');
    expect(two.body.data.files).toMatchObject({ page_number: 2, page_size: 2, has_more: false });
    expect(two.body.data.files.items.map((f: { evidence_id: string }) => f.evidence_id)).toEqual([files[2]!.id]);
    expect((await a.options('?page[number]=3&page[size]=2')).body.data.files).toMatchObject({ items: [], has_more: false });
  });

  it('lists every register and library definition, and marks what this control links already', async () => {
    const a = await arrange();
    const file = await a.upload('sample-9002');
    await a.link(a.fileLink(file));
    await a.link({ kind: 'register_link', definition_id: REGISTER_DEFINITION_IDS.poam });
    await a.link({ kind: 'library_link', definition_id: LIBRARY_DEFINITION_IDS.continuityPlan });
    const { data } = (await a.options()).body;
    expect(data.files.items).toEqual([expect.objectContaining({ evidence_id: file.id, linked: true })]);
    expect(data.registers.map((r: { definition_id: string }) => r.definition_id)).toEqual(REGISTER_DEFINITIONS.map((d) => d.id));
    expect(data.registers.filter((r: { linked: boolean }) => r.linked)).toEqual([
      { definition_id: REGISTER_DEFINITION_IDS.poam, key: 'poam', name: expect.any(String), owner: 'project', kind: 'manual', linked: true },
    ]);
    expect(data.library.map((l: { definition_id: string }) => l.definition_id)).toEqual(LIBRARY_DEFINITIONS.map((d) => d.id));
    expect(data.library.filter((l: { linked: boolean }) => l.linked).map((l: { key: string }) => l.key)).toEqual(['continuity-plan']);
    expect(data.redacted_fields).toEqual([]);
  });

  it("lists the organisation's repository connections without credentials, and no other organisation's", async () => {
    const a = await arrange();
    const mine = await repositoryConnection(world.op.organisationId, {
      url: 'https://x-access-token:ghp_secret@github.com/acme/policies.git',
      name: 'Policies',
    });
    const theirs = await repositoryConnection('01JZZZZZZZZZZZZZZZZZZZZZZZ');
    const { repositories } = (await a.options()).body.data;
    expect(repositories).toContainEqual({ connection_id: mine.id, provider: 'github', name: 'Policies', url: 'https://github.com/acme/policies.git' });
    expect(repositories.map((r: { connection_id: string }) => r.connection_id)).not.toContain(theirs.id);
    expect(JSON.stringify(repositories)).not.toContain('ghp_secret');
  });

  it('leaves the registers out without view-registers, naming them in redacted_fields', async () => {
    const a = await arrange();
    const res = await a.options('', await world.projectToken(a.p.id, ['view-controls']));
    expect(res.status).toBe(200);
    expect(res.body.data.registers).toBeUndefined();
    expect(res.body.data.redacted_fields).toEqual(['registers']);
    expect(res.body.data.library).toHaveLength(LIBRARY_DEFINITIONS.length);
  });

  it('creates no records: the control and its evidence read the same afterwards', async () => {
    const a = await arrange();
    await a.upload('sample-9002');
    const before = await a.read('sample-9001');
    expect((await a.options()).status).toBe(200);
    const after = await a.read('sample-9001');
    expect(after.etag).toBe(before.etag);
    expect(after.body.evidence_items).toEqual([]);
  });

  it('needs view-controls (403), a control of the project (404) and a page size of at most 100 (422)', async () => {
    const a = await arrange();
    expect((await a.options('', await world.projectToken(a.p.id, ['view-registers']))).status).toBe(403);
    const unknown = await api.request('GET', controlsUrl(a.p.id, '/01JZZZZZZZZZZZZZZZZZZZZZZZ/evidence/link-options'), { token: a.token });
    expect(unknown.status).toBe(404);
    const big = await a.options('?page[size]=101');
    expect(big.status).toBe(422);
    expect(big.body.errors[0].pointer).toBe('/query/page[size]');
  });
});
