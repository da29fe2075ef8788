import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { newUlid } from '../../lib/domain/ids.js';
import { metadataOf, type EvidenceSource } from '../../lib/domain/evidence.js';
import { LIBRARY_DEFINITION_IDS } from '../../lib/domain/library-definitions.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { REGISTER_DEFINITION_IDS } from '../../lib/domain/registers.js';
import { downloadEvidence } from '../../lib/operations/evidence/content.js';
import type { Api } from '../support/api.js';
import { EXTERNAL, TEXT } from '../support/evidence.js';
import { arrangeUploads, pdfForm, sessionForm } from '../support/evidence-files.js';
import { createEvidence } from '../support/factories.js';
import { form, officeDocument, PDF, png } from '../support/files.js';
import { operationContext } from '../support/operation-context.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

type Arranged = Awaited<ReturnType<typeof arrangeUploads>>;
const arrange = () => arrangeUploads(api, world);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A link item written as the link operation will write it (that operation is not this file's subject). */
async function linked(a: Arranged, kind: 'register_link' | 'library_link', source: EvidenceSource): Promise<string> {
  const item = await createEvidence({
    ...metadataOf({ title: 'Linked source' }),
    project_id: a.p.id,
    control_id: a.control,
    kind,
    source,
    created_by: world.op.userId,
    updated_by: world.op.userId,
  });
  return item.id;
}

const without = (...held: string[]) => permissionsOf('project').filter((p) => !held.includes(p));

describe('getEvidenceContent and downloadEvidence of uploaded files', () => {
  it('answers a ready file inline from the content endpoint: private, never cached, never sniffed', async () => {
    const a = await arrange();
    const image = png(20, 20);
    const item = await a.uploaded(form(image, 'firewall-review.png', 'image/png'));
    const res = await a.content(item.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="firewall-review.png"; filename*=UTF-8''firewall-review.png`);
    expect(res.bytes.equals(image)).toBe(true);
  });

  it('answers the file as an attachment from the download endpoint, its name safe in both forms', async () => {
    const a = await arrange();
    const item = await a.uploaded(pdfForm('Prüfbericht Q3 (final).pdf'));
    const res = await a.download(item.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Pr_fbericht Q3 (final).pdf"; filename*=UTF-8''Pr%C3%BCfbericht%20Q3%20%28final%29.pdf`,
    );
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.bytes.equals(PDF)).toBe(true);
  });

  it('answers text with the type it was accepted as, in UTF-8', async () => {
    const a = await arrange();
    const csv = Buffer.from('host,port\nweb-01,443\n');
    const item = await a.uploaded(form(csv, 'hosts.csv', 'text/csv'));
    const res = await a.content(item.id);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.bytes.equals(csv)).toBe(true);
  });

  it('is 404 for a file still pending and for a failed one', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    expect((await a.content(pending.id)).status).toBe(404);
    expect((await a.download(pending.id)).status).toBe(404);
    const failed = await a.uploaded(form(Buffer.from('MZ\u0000binary'), 'x.exe', 'application/octet-stream'));
    expect((await a.content(failed.id)).status).toBe(404);
    expect((await a.download(failed.id)).status).toBe(404);
  });

  it('offers an Office document as a download only: its content is 409 unsupported_content_representation with links.download', async () => {
    const a = await arrange();
    const docx = officeDocument();
    const item = await a.uploaded(form(docx, 'policy.docx', 'application/octet-stream'));
    expect(item).toMatchObject({ content_representation: 'download_endpoint', links: { download: a.evidenceUrl(`/${item.id}/download`) } });
    const content = await a.content(item.id);
    expect(content.status).toBe(409);
    expect(content.body).toMatchObject({ code: 'unsupported_content_representation', links: { download: item.links.download } });
    expect(content.body.links.content).toBeUndefined();
    const download = await a.download(item.id);
    expect(download.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(download.bytes.equals(docx)).toBe(true);
  });

  it('answers HEAD with the headers and length of the file, without its body', async () => {
    const a = await arrange();
    const item = await a.uploaded(pdfForm());
    // fetch itself: the OpenAPI document describes GET, which HEAD answers without the body.
    const res = await fetch(api.base + a.evidenceUrl(`/${item.id}/download`), { method: 'HEAD', headers: { Authorization: `Bearer ${a.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(PDF.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('needs view-controls (403)', async () => {
    const a = await arrange();
    const item = await a.uploaded(pdfForm());
    const tasksOnly = await world.projectToken(a.p.id, ['view-tasks']);
    expect((await a.download(item.id, tasksOnly)).status).toBe(403);
  });
});

describe('a 20 MiB file through an upload session', () => {
  it('reaches ready, is too large for the content endpoint (409 with links.download) and downloads streamed', async () => {
    const a = await arrange();
    const big = Buffer.concat([PDF, Buffer.alloc(20 * 1024 * 1024 - PDF.length, 0x20)]);
    const created = await a.upload(sessionForm(await a.session('full-scan.pdf', big)));
    expect(created.status).toBe(201);
    await api.drainJobs();
    const item = (await a.item(created.body.data.id)).body;
    expect(item).toMatchObject({ status: 'ready', file: { size: big.length, content_type: 'application/pdf' }, content_representation: 'download_endpoint' });
    const content = await a.content(item.id);
    expect(content.status).toBe(409);
    expect(content.body).toMatchObject({ code: 'evidence_content_too_large', links: { download: item.links.download } });
    const download = await a.download(item.id);
    expect(download.headers.get('content-length')).toBe(String(big.length));
    expect(sha256(download.bytes)).toBe(sha256(big));

    const params = { project: a.p.id, control: a.control, evidence: item.id };
    const answer = await downloadEvidence.handle(await operationContext(downloadEvidence, params, a.token), { params, query: {}, body: undefined });
    const file = answer.file as { stream?: Readable; bytes?: Buffer; length: number };
    expect(file.stream).toBeInstanceOf(Readable);
    expect(file.bytes).toBeUndefined();
    expect(file.length).toBe(big.length);
    file.stream!.destroy();
  });
});

describe('evidence without a file', () => {
  it('has neither content nor download for references: 409 unsupported_content_representation without links', async () => {
    const a = await arrange();
    for (const body of [EXTERNAL, TEXT]) {
      const reference = (await a.reference(body)).body.data;
      for (const res of [await a.content(reference.id), await a.download(reference.id)]) {
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ code: 'unsupported_content_representation', links: {} });
      }
    }
  });

  it("answers a register link's content as the register's rows in JSON, redacted as the credential reads rows", async () => {
    const a = await arrange();
    const rowsUrl = `/api/v1/projects/${a.p.id}/registers/${REGISTER_DEFINITION_IDS.riskRegister}/rows`;
    const row = await api.request('POST', rowsUrl, {
      token: a.token,
      headers: { 'Idempotency-Key': newUlid() },
      body: { data: { risk_id: 'R-1', title: 'Unpatched VPN', status: 'open' } },
    });
    expect(row.status).toBe(201);
    const id = await linked(a, 'register_link', { kind: 'register', definition_id: REGISTER_DEFINITION_IDS.riskRegister });
    const res = await a.content(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toMatchObject({ definition: { id: REGISTER_DEFINITION_IDS.riskRegister, key: 'risk-register' }, rows: [row.body.data] });
    const noContacts = await world.projectToken(a.p.id, without('view-contacts'));
    expect((await a.content(id, noContacts)).body.rows[0].redacted_fields).toContain('risk_owner');
  });

  it('needs view-registers for a register link (403), and offers it no download (409 with links.content)', async () => {
    const a = await arrange();
    const id = await linked(a, 'register_link', { kind: 'register', definition_id: REGISTER_DEFINITION_IDS.riskRegister });
    const noRegisters = await world.projectToken(a.p.id, without('view-registers', 'manage-registers'));
    const refused = await a.content(id, noRegisters);
    expect(refused.status).toBe(403);
    const download = await a.download(id);
    expect(download.status).toBe(409);
    expect(download.body).toMatchObject({ code: 'unsupported_content_representation', links: { content: a.evidenceUrl(`/${id}/content`) } });
  });

  it("answers a library link's content as the working copy's Markdown, empty before its first edit", async () => {
    const a = await arrange();
    const definition = LIBRARY_DEFINITION_IDS.informationSecurityPolicy;
    const id = await linked(a, 'library_link', { kind: 'library', definition_id: definition });
    const empty = await a.content(id);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(empty.bytes.length).toBe(0);
    const path = `/api/v1/projects/${a.p.id}/library/${definition}`;
    const etag = (await api.request('GET', path, { token: a.token })).headers.get('etag')!;
    const markdown = '# Information security policy\n\nAccess is reviewed quarterly.\n';
    const saved = await api.request('PATCH', path, { token: a.token, headers: { 'If-Match': etag }, body: { content_markdown: markdown } });
    expect(saved.status).toBe(200);
    expect((await a.content(id)).bytes.toString('utf8')).toBe(markdown);
  });
});
