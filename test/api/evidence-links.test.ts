import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIBRARY_DEFINITION_IDS } from '../../lib/domain/library-definitions.js';
import { REGISTER_DEFINITION_IDS } from '../../lib/domain/registers.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { linkClaimKey } from '../../lib/store/evidence.js';
import { fixtures, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { controlsUrl, IMPLEMENTED } from '../support/controls.js';
import { arrangeEvidence, repositoryConnection } from '../support/evidence.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeEvidence>[2]) => arrangeEvidence(api, world, options);
const EDITOR = ['view-controls', 'edit-control-implementation'] as const;
const REGISTER = { kind: 'register_link', definition_id: REGISTER_DEFINITION_IDS.riskRegister };
const LIBRARY = { kind: 'library_link', definition_id: LIBRARY_DEFINITION_IDS.informationSecurityPolicy };
const pointers = (body: { errors: { pointer: string; code: string }[] }) => body.errors.map((e) => `${e.pointer} ${e.code}`);

describe('createEvidenceLink: a file of another control', () => {
  it('links a ready upload of another control, copying its file facts (201, Location, item ETag)', async () => {
    const a = await arrange();
    const source = await a.upload('sample-9002');
    const res = await a.link(a.fileLink(source));
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(a.evidenceUrl(`/${res.body.data.id}`));
    expect(res.headers.get('etag')).toBe(res.body.data.etag);
    expect(res.body.data).toMatchObject({
      kind: 'file_link',
      title: source.file_name,
      status: 'ready',
      already_linked: false,
      file: { file_name: source.file_name, size: source.size, content_type: 'application/pdf', sha256: source.sha256 },
      source: { kind: 'file', control_id: source.control_id, evidence_id: source.id },
      content_representation: 'content_and_download',
      links: { content: `${a.evidenceUrl(`/${res.body.data.id}`)}/content`, download: `${a.evidenceUrl(`/${res.body.data.id}`)}/download` },
    });
    const { already_linked: _, ...item } = res.body.data;
    expect(await a.items()).toEqual([item]);
  });

  it('answers a repeated identical link with 200, already_linked and the same item, creating nothing', async () => {
    const a = await arrange();
    const source = await a.upload('sample-9002');
    const first = await a.link(a.fileLink(source));
    const again = await a.link(a.fileLink(source, { title: 'Another title', evidence_type: 'minutes' }));
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBeNull();
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.body.data).toEqual({ ...first.body.data, already_linked: true });
    expect(await a.items()).toHaveLength(1);
  });

  it('creates one link when two identical requests race; the other answers already_linked', async () => {
    const a = await arrange();
    const source = await a.upload('sample-9002');
    const answers = await Promise.all([a.link(a.fileLink(source)), a.link(a.fileLink(source)), a.link(a.fileLink(source))]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(1);
    expect(await a.items()).toHaveLength(1);
  });

  it('links the same file again once the link is deleted (the delete frees its claim)', async () => {
    const a = await arrange();
    const source = await a.upload('sample-9002');
    const first = await a.link(a.fileLink(source));
    const deleted = await api.request('DELETE', a.evidenceUrl(`/${first.body.data.id}`), { token: a.token, headers: { 'If-Match': first.body.data.etag } });
    expect(deleted.status).toBe(200);
    const again = await a.link(a.fileLink(source));
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect((await a.items()).map((i) => i.id)).toEqual([again.body.data.id]);
  });

  it('refuses a file that is still being scanned or was refused (422 source_not_ready)', async () => {
    const a = await arrange();
    for (const file_status of ['quarantine', 'error'] as const) {
      const source = await a.upload('sample-9002', { file_status });
      const res = await a.link(a.fileLink(source));
      expect(res.status).toBe(422);
      expect(pointers(res.body)).toEqual(['/source_evidence_id source_not_ready']);
    }
    expect(await a.items()).toEqual([]);
  });

  it('refuses an item that is not an uploaded file: a reference, or a link (422 invalid_reference)', async () => {
    const a = await arrange();
    const source = await a.upload('sample-9003');
    const onOther = arrangeOn(a, 'sample-9002');
    const reference = await onOther.reference();
    const link = await onOther.link(a.fileLink(source));
    for (const id of [reference.body.data.id, link.body.data.id]) {
      const res = await a.link({ kind: 'file_link', source_control_id: a.idOf('sample-9002'), source_evidence_id: id });
      expect(res.status).toBe(422);
      expect(pointers(res.body)).toEqual(['/source_evidence_id invalid_reference']);
    }
  });

  it("refuses this control's own file, an unknown item and a file of another project (422 invalid_reference)", async () => {
    const a = await arrange();
    const own = await a.upload('sample-9001');
    const same = await a.link(a.fileLink(own));
    expect(pointers(same.body)).toEqual(['/source_control_id invalid_reference']);
    const unknown = await a.link({ kind: 'file_link', source_control_id: a.idOf('sample-9002'), source_evidence_id: '01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(pointers(unknown.body)).toEqual(['/source_evidence_id invalid_reference']);
    const b = await arrange();
    const foreign = await b.upload('sample-9002');
    const other = await a.link(a.fileLink(foreign));
    expect(other.status).toBe(422);
    expect(pointers(other.body)).toEqual(['/source_evidence_id invalid_reference']);
    expect((await a.items()).map((i) => i.id)).toEqual([own.id]);
  });
});

/** The same project's helpers, over the evidence of another control. */
function arrangeOn(a: Awaited<ReturnType<typeof arrange>>, catalogueId: string) {
  const url = a.evidenceUrl('', a.idOf(catalogueId));
  return {
    reference: () =>
      api.request('POST', `${url}/references`, {
        token: a.token,
        body: { kind: 'external_reference', title: 'Ticket', external_reference: 'https://t.example.test/1' },
      }),
    link: (body: Record<string, unknown>) => api.request('POST', `${url}/links`, { token: a.token, body }),
  };
}

describe('createEvidenceLink: registers and library documents', () => {
  it('links a register the project sees, titled by its name, read through the content endpoint', async () => {
    const a = await arrange();
    const res = await a.link(REGISTER);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      kind: 'register_link',
      title: 'Risk register',
      source: { kind: 'register', definition_id: REGISTER_DEFINITION_IDS.riskRegister },
      file: null,
      content_representation: 'content_endpoint',
      links: { content: `${a.evidenceUrl(`/${res.body.data.id}`)}/content` },
    });
    const summary = await a.link({ kind: 'register_link', definition_id: REGISTER_DEFINITION_IDS.controlSummary });
    expect(summary.status).toBe(201);
    expect((await a.link(REGISTER)).body.data).toMatchObject({ id: res.body.data.id, already_linked: true });
  });

  it('needs view-registers for a register source, selected (422 unreadable_reference)', async () => {
    const a = await arrange();
    const res = await a.link(REGISTER, await world.projectToken(a.p.id, [...EDITOR]));
    expect(res.status).toBe(422);
    expect(pointers(res.body)).toEqual(['/definition_id unreadable_reference']);
    expect(await a.items()).toEqual([]);
  });

  it('needs view-registers held live, not only selected (422 unreadable_reference)', async () => {
    const a = await arrange();
    await fixtures.grant(world.op.userId, { kind: 'project', id: a.p.id }, [...EDITOR]);
    const res = await a.link(REGISTER);
    expect(res.status).toBe(422);
    expect(pointers(res.body)).toEqual(['/definition_id unreadable_reference']);
    expect((await a.link(LIBRARY)).status).toBe(201);
  });

  it('links a library document with view-controls and edit-control-implementation alone', async () => {
    const a = await arrange();
    const res = await a.link({ ...LIBRARY, title: 'ISP, current draft', review_due: '2027-01-31' }, await world.projectToken(a.p.id, [...EDITOR]));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      kind: 'library_link',
      title: 'ISP, current draft',
      review_due: '2027-01-31',
      source: { kind: 'library', definition_id: LIBRARY.definition_id },
      content_representation: 'content_endpoint',
    });
  });

  it('refuses a definition that is not in the catalogue of its kind (422 invalid_reference)', async () => {
    const a = await arrange();
    for (const body of [
      { kind: 'register_link', definition_id: LIBRARY.definition_id },
      { kind: 'library_link', definition_id: REGISTER.definition_id },
    ]) {
      const res = await a.link(body);
      expect(pointers(res.body)).toEqual(['/definition_id invalid_reference']);
    }
  });
});

describe('createEvidenceLink: repository files', () => {
  const file = (connection_id: string, extra: Record<string, unknown> = {}) => ({
    kind: 'repository_link',
    connection_id,
    path: 'policies/access-control.md',
    ref: 'main',
    ...extra,
  });

  it("links a file of a connection of the project's organisation, titled by its path", async () => {
    const a = await arrange();
    const connection = await repositoryConnection(world.op.organisationId);
    const res = await a.link(file(connection.id));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      kind: 'repository_link',
      title: 'policies/access-control.md',
      source: { kind: 'repository', connection_id: connection.id, path: 'policies/access-control.md', ref: 'main' },
      content_representation: 'content_and_download',
    });
    expect((await a.link(file(connection.id, { ref: 'release/2026.1' }))).status).toBe(201);
    expect((await a.link(file(connection.id))).status).toBe(200);
  });

  it("refuses an unknown connection and another organisation's (422 invalid_reference)", async () => {
    const a = await arrange();
    const elsewhere = await repositoryConnection('01JZZZZZZZZZZZZZZZZZZZZZZZ');
    for (const id of ['01JZZZZZZZZZZZZZZZZZZZZZZY', elsewhere.id]) {
      const res = await a.link(file(id));
      expect(res.status).toBe(422);
      expect(pointers(res.body)).toEqual(['/connection_id invalid_reference']);
    }
  });

  it('refuses paths outside the working tree and refs git would not take (422)', async () => {
    const a = await arrange();
    const connection = await repositoryConnection(world.op.organisationId);
    for (const path of ['/etc/passwd', '../secrets', 'docs\\policy.md', '.git/config', 'x'.repeat(1025)]) {
      const res = await a.link(file(connection.id, { path }));
      expect(res.status, path).toBe(422);
      expect(pointers(res.body)).toEqual(['/path invalid_repository_path']);
    }
    for (const ref of ['main..x', 'feature branch', 'HEAD@{1}', '-x', 'x.lock']) {
      const res = await a.link(file(connection.id, { ref }));
      expect(pointers(res.body), ref).toEqual(['/ref invalid_ref']);
    }
    const nul = await a.link(file(connection.id, { path: 'docs/\u0000x' }));
    expect(pointers(nul.body)).toContain('/path forbidden_character');
    expect(await a.items()).toEqual([]);
  });
});

describe('createEvidenceLink: the rules every evidence write keeps', () => {
  it('refuses fields of another kind, server-owned fields and a review date before the collection date (422)', async () => {
    const a = await arrange();
    for (const body of [
      { ...LIBRARY, path: 'x.md' },
      { ...REGISTER, status: 'ready' },
      { ...REGISTER, source: { kind: 'register', definition_id: REGISTER.definition_id } },
      { kind: 'upload', definition_id: REGISTER.definition_id },
      { ...LIBRARY, collected_on: '2026-10-01', review_due: '2026-09-30' },
    ]) {
      expect((await a.link(body)).status, JSON.stringify(body)).toBe(422);
    }
    expect(await a.items()).toEqual([]);
  });

  it('needs the control in editing (403) and edit-control-implementation (403)', async () => {
    const a = await arrange();
    expect((await a.link(LIBRARY, await world.projectToken(a.p.id, ['view-controls', 'view-registers']))).status).toBe(403);
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    const res = await a.link(LIBRARY);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('workflow_state_forbids_edit');
  });

  it('is 404 for a control outside the project and 415 for a body that is not JSON', async () => {
    const a = await arrange();
    const unknown = await api.request('POST', controlsUrl(a.p.id, '/01JZZZZZZZZZZZZZZZZZZZZZZZ/evidence/links'), { token: a.token, body: LIBRARY });
    expect(unknown.status).toBe(404);
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const form = await api.request('POST', a.evidenceUrl('/links'), { token: a.token, rawBody: 'kind=library_link', headers });
    expect(form.status).toBe(415);
  });

  it('answers 409 evidence_link_changed when the claim names a link that is gone on both runs', async () => {
    const a = await arrange();
    const source = { kind: 'library' as const, definition_id: LIBRARY.definition_id };
    const claim = { ...linkClaimKey(a.p.id, a.control, source), evidence_id: '01JZZZZZZZZZZZZZZZZZZZZZZZ' };
    await ddb().send(new PutCommand({ TableName: tableName(), Item: claim }));
    const res = await a.link(LIBRARY);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('evidence_link_changed');
  });

  it('counts links against the per-control limit (422 evidence_limit_reached)', async () => {
    const a = await arrange();
    await a.referencesWritten(50);
    const res = await a.link(LIBRARY);
    expect(res.status).toBe(422);
    expect(pointers(res.body)).toEqual([' evidence_limit_reached']);
  });

  it('writes an audit record naming the item and its kind, and one for a repeat', async () => {
    const a = await arrange();
    const created = await a.link(LIBRARY);
    await a.link(LIBRARY);
    const records = (await auditRecords(world.op.organisationId)).filter(
      (r) => r.kind === 'CREATE_EVIDENCE_LINK' && (r.target as { evidence: string }).evidence === created.body.data.id,
    );
    expect(records.map((r) => [r.status, r.details])).toEqual([
      [201, { kind: 'library_link' }],
      [200, { kind: 'library_link', already_linked: true }],
    ]);
  });
});
