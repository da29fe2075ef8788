import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { controlsUrl, IMPLEMENTED } from '../support/controls.js';
import { documentsUrl } from '../support/documents.js';
import { arrangeUploads, pdfForm } from '../support/evidence-files.js';
import { PDF } from '../support/files.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

describe('evidence from upload to capture at assessment', () => {
  it('uploads a file, scans it, pins it by digest when the control is assessed, and keeps the pinned version after the file is replaced', async () => {
    const a = await arrangeUploads(api, world);
    const accepted = await a.upload(pdfForm('access-review.pdf', { title: 'Access review', collected_on: '2026-11-20' }));
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toMatchObject({ status: 'pending', processing: true, content_representation: 'unavailable' });
    await api.drainJobs();
    const ready = (await a.item(accepted.body.data.id)).body;
    expect(ready).toMatchObject({ status: 'ready', file: { content_type: 'application/pdf' }, content_representation: 'content_and_download' });

    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', evidence_references: [ready.id] }, undefined, 'assessment');
    const assessed = await a.transition('sample-9001', { transition: 'assessing_to_assessed' });
    expect(assessed.status).toBe(200);
    expect(assessed.body.data.evidence_snapshot).toMatchObject({
      versions: [{ evidence_id: ready.id, version: expect.any(Number), sha256: ready.file.sha256 }],
      acknowledged_warnings: [],
    });
    const pinnedVersion = assessed.body.data.evidence_snapshot.versions[0].version;

    await a.transition('sample-9001', { transition: 'assessed_to_editing' });
    const replaced = await a.replace(ready.id, pdfForm('access-review-v2.pdf'), ready.etag);
    expect(replaced.status).toBe(202);
    expect((await a.item(ready.id)).res.status).toBe(404);
    const pinned = await api.request('GET', controlsUrl(a.p.id, `/${a.control}/evidence/${ready.id}/versions/${pinnedVersion}`), { token: a.token });
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({ id: ready.id, title: 'Access review', file: { sha256: ready.file.sha256, file_name: 'access-review.pdf' } });
    const bytes = await api.request('GET', controlsUrl(a.p.id, `/${a.control}/evidence/${ready.id}/versions/${pinnedVersion}/download`), { token: a.token });
    expect(bytes.status).toBe(200);
    expect(createHash('sha256').update(bytes.bytes).digest('hex')).toBe(ready.file.sha256);
    expect(bytes.headers.get('content-disposition')).toMatch(/^attachment; filename="access-review.pdf"/);
  });

  it('cites the pinned file in the OSCAL assessment results at an address that still gives its bytes after the file is replaced', async () => {
    const a = await arrangeUploads(api, world);
    const ready = await a.uploaded(pdfForm('firewall-rules.pdf', { title: 'Firewall rules' }));
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    await a.patch('sample-9001', { overall_assessed_outcome: 'effective', evidence_references: [ready.id] }, undefined, 'assessment');
    expect((await a.transition('sample-9001', { transition: 'assessing_to_assessed' })).status).toBe(200);
    const started = await api.request('POST', documentsUrl(a.p.id, '/generation'), { token: a.token, body: { document_key: 'oscal-assessment-results' } });
    expect(started.status).toBe(202);
    await api.drainJobs();
    const document = await api.request('GET', documentsUrl(a.p.id, `/${started.body.data.document_id}/download`), { token: a.token });
    const resources = JSON.parse(document.bytes.toString('utf8'))['assessment-results']['back-matter'].resources as {
      title: string;
      rlinks?: { href: string; hashes: { value: string }[] }[];
    }[];
    const [rlink] = resources.find((r) => r.title === 'Firewall rules')!.rlinks!;
    expect(rlink!.hashes[0]!.value).toBe(ready.file.sha256);
    const path = new URL(rlink!.href).pathname;

    await a.transition('sample-9001', { transition: 'assessed_to_editing' });
    const revised = Buffer.concat([PDF, Buffer.from('% revised\n')]);
    expect((await a.replace(ready.id, pdfForm('firewall-rules-v2.pdf', {}, revised), ready.etag)).status).toBe(202);
    await api.drainJobs();
    const live = (await a.items()).find((e) => e.status === 'ready')!;
    expect((await a.item(live.id)).body.file.sha256).toBe(createHash('sha256').update(revised).digest('hex'));
    const bytes = await api.request('GET', path, { token: a.token });
    expect(bytes.status).toBe(200);
    expect(createHash('sha256').update(bytes.bytes).digest('hex')).toBe(ready.file.sha256);
  });
});
