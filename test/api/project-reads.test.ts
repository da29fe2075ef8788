import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { newUlid } from '../../lib/domain/ids.js';
import type { Release } from '../../lib/catalogue/store.js';
import type { Api } from '../support/api.js';
import { form, png } from '../support/files.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let release: Release;
let world: World;

beforeAll(async () => ({ api, release, world } = await startProjectWorld()));
afterAll(() => api.stop());

/** A valid PNG grown to `size` bytes by a private ancillary chunk (decoders skip it), as large photos of diagrams are. */
function withPadding(image: Buffer, size: number): Buffer {
  const iend = image.length - 12;
  const data = randomBytes(size - image.length - 12);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(data.length, 0);
  header.write('prVt', 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([header.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([image.subarray(0, iend), header, data, crc, image.subarray(iend)]);
}

const project = (id: string, rest = '') => `/api/v1/projects/${id}${rest}`;

describe('project credential reads', () => {
  it('lists exactly the bound project', async () => {
    const p = await world.project();
    await world.project();
    const token = await world.projectToken(p.id);
    const res = await api.request('GET', '/api/v1/projects', { token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect(res.body.meta).toMatchObject({ total: 1, current_page: 1, page_size: 50 });
  });

  it('reads inputs: identity, hierarchy, release, classification, lifecycle and target, and nothing else', async () => {
    const p = await world.project({ essential_eight_target: 'ML1' });
    const token = await world.projectToken(p.id, ['view-projects']);
    const res = await api.request('GET', project(p.id, '/inputs'), { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual([
      'archived',
      'classification',
      'essential_eight_target',
      'id',
      'ism_release',
      'lifecycle_state',
      'name',
      'organisation_id',
      'system_id',
    ]);
    expect(res.body.data).toMatchObject({
      id: p.id,
      system_id: world.systemId,
      ism_release: { id: release.id },
      classification: 'P',
      essential_eight_target: 'ML1',
    });
  });

  it('answers inputs as {data} alone, the only member the contract declares', async () => {
    const p = await world.project();
    const token = await world.projectToken(p.id, ['view-projects']);
    const res = await api.request('GET', project(p.id, '/inputs'), { token });
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('reads the canonical organisation and system context with manage-projects', async () => {
    const p = await world.project();
    const token = await world.projectToken(p.id, ['view-projects', 'manage-projects']);
    const res = await api.request('GET', project(p.id, '/context'), { token });
    expect(res.status).toBe(200);
    expect(res.body.data.system.definition.fields.map((f: { id: string }) => f.id)).toContain('hosting_model');
    expect(res.body.data.organisation.data).toHaveProperty('outsourced_delivery');
  });

  it('refuses context and scope without manage-projects (403)', async () => {
    const p = await world.project();
    const token = await world.projectToken(p.id, ['view-projects']);
    expect((await api.request('GET', project(p.id, '/context'), { token })).status).toBe(403);
    expect((await api.request('GET', project(p.id, '/scope'), { token })).status).toBe(403);
  });

  it('reads the scope without provider-selection management metadata', async () => {
    const p = await world.project();
    const etag = (await api.request('GET', `${p.url}/scope`, { token: world.op.org })).headers.get('etag')!;
    await api.request('PATCH', `${p.url}/scope`, {
      token: world.op.org,
      headers: { 'If-Match': etag },
      body: { data: { objectives: 'Annual' }, provider_selections: [] },
    });
    const token = await world.projectToken(p.id, ['view-projects', 'manage-projects']);
    const res = await api.request('GET', project(p.id, '/scope'), { token });
    expect(res.body.data).toMatchObject({ data: { objectives: 'Annual' }, provider_selections: [] });
    expect(res.body.data).not.toHaveProperty('provider_selections_updated_by');
  });

  it('reads only the allowlisted engagement details', async () => {
    const p = await world.project();
    const etag = (await api.request('GET', `${p.url}/engagement`, { token: world.op.org })).headers.get('etag')!;
    await api.request('PATCH', `${p.url}/engagement`, {
      token: world.op.org,
      headers: { 'If-Match': etag },
      body: { engagement_reference: 'ENG-7', commercial_reference: 'PO-1' },
    });
    const token = await world.projectToken(p.id, ['view-projects']);
    const res = await api.request('GET', project(p.id, '/engagement'), { token });
    expect(res.body.data).toMatchObject({ engagement_reference: 'ENG-7', redacted_fields: ['commercial_reference', 'internal_notes'] });
    expect(res.body.data).not.toHaveProperty('commercial_reference');
  });

  it("lists the system's active contacts", async () => {
    const p = await world.project();
    const created = await api.request('POST', `/api/v1/organisations/${world.op.organisationId}/systems/${world.systemId}/contacts`, {
      token: world.op.org,
      headers: { 'Idempotency-Key': newUlid() },
      body: { name: 'Pat Owner' },
    });
    expect(created.status).toBe(201);
    const token = await world.projectToken(p.id, ['view-contacts']);
    const res = await api.request('GET', project(p.id, '/contacts'), { token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toContain(created.body.data.id);
    expect(res.body.meta.total).toBe(res.body.data.length);
  });

  it('answers 404 for another project', async () => {
    const p = await world.project();
    const token = await world.projectToken(p.id);
    expect((await api.request('GET', project(newUlid(), '/inputs'), { token })).status).toBe(404);
  });
});

describe('network diagram', () => {
  async function upload(p: { url: string }, file: Buffer, name = 'diagram.png') {
    const etag = (await api.request('GET', `${p.url}/artefacts`, { token: world.op.org })).headers.get('etag')!;
    return api.request('POST', `${p.url}/artefacts/network-diagram`, { token: world.op.org, headers: { 'If-Match': etag }, form: form(file, name) });
  }

  it('has none at first', async () => {
    const p = await world.project();
    const res = await api.request('GET', `${p.url}/artefacts`, { token: world.op.org });
    expect(res.body.data).toEqual({
      assessment_scope: { network_diagram: { status: null, processing: false, error: null } },
      assessment_scope_artefacts: { network_diagram: null },
    });
    expect((await api.request('GET', `${p.url}/artefacts/network-diagram/file`, { token: world.op.org })).status).toBe(404);
  });

  it('queues an upload for scanning (202, pending), then serves it once ready to both credentials', async () => {
    const p = await world.project();
    const image = png(320, 200);
    const res = await upload(p, image);
    expect(res.status).toBe(202);
    expect(res.body.data.assessment_scope.network_diagram).toEqual({ status: 'pending', processing: true, error: null });
    expect((await api.request('GET', `${p.url}/artefacts/network-diagram/file`, { token: world.op.org })).status).toBe(404);

    await api.drainJobs();
    const ready = await api.request('GET', `${p.url}/artefacts`, { token: world.op.org });
    expect(ready.body.data.assessment_scope_artefacts.network_diagram).toMatchObject({
      file_name: 'diagram.png',
      content_type: 'image/png',
      width: 320,
      height: 200,
      url: `${p.url}/artefacts/network-diagram/file`,
    });
    expect(ready.headers.get('etag')).not.toBe(res.headers.get('etag'));
    const file = await api.request('GET', `${p.url}/artefacts/network-diagram/file`, { token: world.op.org });
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toBe('private, no-store');
    expect(file.bytes.equals(image)).toBe(true);
    const token = await world.projectToken(p.id, ['view-projects']);
    const viaProject = await api.request('GET', project(p.id, '/artefacts/network-diagram/file'), { token });
    expect(viaProject.status).toBe(200);
    expect(viaProject.bytes.equals(image)).toBe(true);
  });

  it('fails a file that is not an image, which then does not download', async () => {
    const p = await world.project();
    await upload(p, Buffer.from('%PDF-1.7 not a diagram'), 'diagram.png');
    await api.drainJobs();
    const res = await api.request('GET', `${p.url}/artefacts`, { token: world.op.org });
    expect(res.body.data.assessment_scope.network_diagram).toMatchObject({ status: 'failed', processing: false, error: 'unsupported_type' });
    expect((await api.request('GET', `${p.url}/artefacts/network-diagram/file`, { token: world.op.org })).status).toBe(404);
    expect((await api.request('GET', `${p.url}/health`, { token: world.op.org })).body.data.warnings.items.map((w: { code: string }) => w.code)).toContain(
      'network_diagram_failed',
    );
  });

  it('takes an 8 MiB diagram through an upload session and streams it back whole', async () => {
    const p = await world.project();
    const session = await api.request('POST', `${p.url}/artefacts/network-diagram/upload-sessions`, { token: world.op.org, body: { file_name: 'site.png' } });
    expect(session.status).toBe(201);
    const image = withPadding(png(640, 480), 8 * 1024 * 1024);
    const s3form = new FormData();
    for (const [k, v] of Object.entries(session.body.data.upload.fields as Record<string, string>)) s3form.append(k, v);
    s3form.append('file', new Blob([image]), 'site.png');
    expect((await fetch(session.body.data.upload.url, { method: 'POST', body: s3form })).status).toBeLessThan(300);

    const etag = (await api.request('GET', `${p.url}/artefacts`, { token: world.op.org })).headers.get('etag')!;
    const data = new FormData();
    data.append('upload_session', session.body.data.id);
    expect((await api.request('POST', `${p.url}/artefacts/network-diagram`, { token: world.op.org, headers: { 'If-Match': etag }, form: data })).status).toBe(
      202,
    );
    await api.drainJobs();
    const file = await api.request('GET', `${p.url}/artefacts/network-diagram/file`, { token: world.op.org });
    expect(file.status).toBe(200);
    expect(file.bytes.length).toBe(image.length);
    expect(file.bytes.equals(image)).toBe(true);
  });

  it('needs the current setup ETag', async () => {
    const p = await world.project();
    expect((await api.request('POST', `${p.url}/artefacts/network-diagram`, { token: world.op.org, form: form(png(32, 32), 'd.png') })).status).toBe(428);
    const stale = await api.request('POST', `${p.url}/artefacts/network-diagram`, {
      token: world.op.org,
      headers: { 'If-Match': '"9-00000000000000000000"' },
      form: form(png(32, 32), 'd.png'),
    });
    expect(stale.status).toBe(412);
  });
});
