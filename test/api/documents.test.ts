import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { newUlid } from '../../lib/domain/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../../lib/catalogue/files.js';
import { publicUrl, resetSettings } from '../../lib/config.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { metadataOf } from '../../lib/domain/evidence.js';
import { updatedMonth } from '../../lib/domain/oscal.js';
import { REGISTER_DEFINITION_IDS } from '../../lib/domain/registers.js';
import { fixtures, type Api } from '../support/api.js';
import { IMPLEMENTED } from '../support/controls.js';
import { arrangeDocuments, documentsUrl } from '../support/documents.js';
import { buildUploadEvidence, createEvidence } from '../support/factories.js';
import { form, png } from '../support/files.js';
import { definedUuids, oscalValidator, uuidReferences } from '../support/oscal.js';
import { startProjectWorld, type World } from '../support/projects.js';
import { scratchDir } from '../support/scratch.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const WITHOUT_GENERATE = permissionsOf('project').filter((p) => p !== 'generate-docsuite');

describe('document catalogue and output rows', () => {
  it('lists every template with its dependency evaluation and no output rows before a generation', async () => {
    const d = await arrangeDocuments(api, world);
    const res = await api.request('GET', d.url(), { token: d.token });
    expect(res.status).toBe(200);
    expect(res.body.data.catalogue.map((e: { document_key: string }) => e.document_key)).toEqual([
      'ssp',
      'soa',
      'controls-json',
      'e8-assessment',
      'security-assessment-report',
      'oscal-ssp',
      'oscal-assessment-results',
      'oscal-poam',
    ]);
    expect(res.body.data.documents).toEqual([]);
    const ssp = res.body.data.catalogue[0];
    expect(ssp).toMatchObject({ format: 'pdf', media_type: 'application/pdf', document_id: null, dependencies: { complete: true } });
    expect(ssp.dependencies.dependencies.find((x: { key: string }) => x.key === 'network_diagram')).toMatchObject({ required: false, status: 'unmet' });
  });

  it('answers 409 dependencies_incomplete with the evaluation while the project has no completed population', async () => {
    const p = await world.project();
    const token = await world.projectToken(p.id);
    const res = await api.request('POST', documentsUrl(p.id, '/generation'), { token, body: { document_key: 'soa' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('dependencies_incomplete');
    expect(res.body.dependencies.dependencies).toContainEqual(expect.objectContaining({ key: 'population_completed', status: 'unmet', required: true }));
    expect((await api.request('GET', documentsUrl(p.id), { token })).body.data.documents).toEqual([]);
  });

  it('answers 409 for an assessment report before any control is assessed, and for an Essential Eight report without a target', async () => {
    const d = await arrangeDocuments(api, world, { project: { essential_eight_target: 'none' } });
    const report = await d.generate('security-assessment-report');
    expect(report.status).toBe(409);
    expect(report.body.dependencies.dependencies).toContainEqual(expect.objectContaining({ key: 'controls_assessed', status: 'unmet' }));
    const e8 = await d.generate('e8-assessment');
    expect(e8.status).toBe(409);
    expect(e8.body.dependencies.dependencies).toContainEqual(expect.objectContaining({ key: 'essential_eight_target', status: 'unmet' }));
  });

  it('generates a catalogue entry: 202 with a Location to poll, queued until the worker runs, then a downloadable draft', async () => {
    const d = await arrangeDocuments(api, world);
    const started = await d.generate('controls-json');
    expect(started.status).toBe(202);
    const id = started.body.data.document_id;
    expect(started.headers.get('location')).toBe(`${d.url(`/${id}`)}/generation`);
    expect(started.body.data).toMatchObject({ status: 'queued', output: 'draft', document_key: 'controls-json', approved_by: null });
    expect((await d.download(id)).status).toBe(404);
    await api.drainJobs();
    const polled = await d.poll(id);
    expect(polled.body.data).toMatchObject({ status: 'completed', error_code: null });
    const row = (await d.get(id)).body.data;
    expect(row).toMatchObject({
      status: 'ready',
      output: { output: 'draft', media_type: 'application/json' },
      links: { download: `${d.url(`/${id}`)}/download` },
    });
    expect(JSON.stringify(row)).not.toMatch(/"documents\/|s3_key|token_id/);
    const file = await d.download(id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/json');
    expect(file.headers.get('cache-control')).toContain('no-store');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(createHash('sha256').update(file.bytes).digest('hex')).toBe(row.output.sha256);
    expect(file.bytes.length).toBe(row.output.size);
  });

  it('lists the output row beside its catalogue entry', async () => {
    const d = await arrangeDocuments(api, world);
    const id = (await d.generate('controls-json')).body.data.document_id;
    await api.drainJobs();
    const list = (await api.request('GET', d.url(), { token: d.token })).body.data;
    expect(list.catalogue.find((e: { document_key: string }) => e.document_key === 'controls-json').document_id).toBe(id);
    expect(list.documents).toEqual([expect.objectContaining({ id, document_key: 'controls-json', status: 'ready' })]);
  });

  it('answers 409 document_exists for a catalogue entry that has an output row, naming it', async () => {
    const d = await arrangeDocuments(api, world);
    const id = (await d.generate('controls-json')).body.data.document_id;
    await api.drainJobs();
    const again = await d.generate('controls-json');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'document_exists', document_id: id });
  });

  it('regenerates an output row as final output with approval: the server records who approved it and when', async () => {
    const d = await arrangeDocuments(api, world);
    const id = (await d.generate('controls-json')).body.data.document_id;
    await api.drainJobs();
    const final = await d.regenerate(id, { generation_options: { draft_watermark: false }, approval_confirmed: true });
    expect(final.status).toBe(202);
    expect(final.body.data.approved_by.id).toBe(world.op.userId);
    await api.drainJobs();
    const row = (await d.get(id)).body.data;
    expect(row.output).toMatchObject({ output: 'final', approved_by: { id: world.op.userId } });
    expect(Date.parse(row.output.approved_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses final output without approval_confirmed, and approval of a draft, with 422', async () => {
    const d = await arrangeDocuments(api, world);
    const unapproved = await d.generate('controls-json', { generation_options: { draft_watermark: false } });
    expect(unapproved.status).toBe(422);
    expect(unapproved.body.errors[0].pointer).toBe('/approval_confirmed');
    const approvedDraft = await d.generate('controls-json', { approval_confirmed: true });
    expect(approvedDraft.status).toBe(422);
  });

  it('refuses approval snapshots, storage paths, workflow states and maturity overrides in the body with 422', async () => {
    const d = await arrangeDocuments(api, world);
    for (const extra of [
      { approval_snapshot: { by: 'someone' } },
      { storage_path: 'documents/x' },
      { workflow_state: 'assessed' },
      { essential_eight_maturity: 'ML3' },
      { generation_options: { maturity_override: 'ML3' } },
    ]) {
      const res = await d.generate('controls-json', extra);
      expect(res.status, JSON.stringify(extra)).toBe(422);
    }
    expect((await api.request('GET', d.url(), { token: d.token })).body.data.documents).toEqual([]);
  });

  it('answers 403 for a credential without generate-docsuite and for a read-only credential', async () => {
    const d = await arrangeDocuments(api, world);
    const viewer = await world.projectToken(d.p.id, WITHOUT_GENERATE);
    expect((await d.generate('controls-json', {}, viewer)).status).toBe(403);
    const readOnly = await fixtures.token(world.op.userId, 'project', { projectId: d.p.id, readOnly: true });
    expect((await d.generate('controls-json', {}, readOnly)).status).toBe(403);
  });

  it('answers 403 project_archived on an archived project', async () => {
    const projectId = await fixtures.project(world.op.organisationId, { archived: true });
    const token = await world.projectToken(projectId);
    const res = await api.request('POST', documentsUrl(projectId, '/generation'), { token, body: { document_key: 'controls-json' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('answers 404 for a document of no row, and for another project’s row', async () => {
    const d = await arrangeDocuments(api, world);
    const other = await arrangeDocuments(api, world);
    const id = (await other.generate('controls-json')).body.data.document_id;
    for (const path of [`/${id}`, `/${id}/generation`, `/${id}/download`, '/01JAAAAAAAAAAAAAAAAAAAAAAA']) {
      expect((await api.request('GET', d.url(path), { token: d.token })).status, path).toBe(404);
    }
  });
});

describe('generated content and redaction', () => {
  it('leaves assessor notes out unless show_assessor_notes is set', async () => {
    const d = await arrangeDocuments(api, world);
    await d.assess('sample-9001', 'Private assessor remark 7QX');
    const id = (await d.generate('controls-json')).body.data.document_id;
    await api.drainJobs();
    expect((await d.download(id)).bytes.toString('utf8')).not.toContain('Private assessor remark 7QX');
    await d.regenerate(id, { generation_options: { show_assessor_notes: true } });
    await api.drainJobs();
    expect((await d.download(id)).bytes.toString('utf8')).toContain('Private assessor remark 7QX');
  });

  it("generates a Statement of Applicability that shows each control's catalogue revision and last-updated month", async () => {
    const d = await arrangeDocuments(api, world);
    const id = (await d.generate('soa')).body.data.document_id;
    await api.drainJobs();
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await d.download(id)).bytes as unknown as ExcelJS.Buffer);
    const sheet = workbook.getWorksheet('Statement of Applicability')!;
    const headers = sheet.getRow(2).values as unknown[];
    const entries = readReleaseDirectory(SAMPLE_CATALOGUE_DIR).entries;
    const shown: [unknown, unknown, unknown][] = [];
    sheet.eachRow((row, n) => {
      if (n > 2) shown.push([row.getCell(1).value, row.getCell(headers.indexOf('Revision')).value, row.getCell(headers.indexOf('Last updated')).value]);
    });
    const byLabel = new Map(entries.map((e) => [e.label, e]));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.filter(([, revision]) => revision !== null).length).toBeGreaterThan(0);
    for (const [label, revision, month] of shown) {
      const entry = byLabel.get(String(label))!;
      expect([revision, month]).toEqual([entry.revision, updatedMonth(entry.updated)]);
    }
  });

  it('generates a security assessment report once a control is assessed', async () => {
    const d = await arrangeDocuments(api, world);
    await d.assess('sample-9001');
    const started = await d.generate('security-assessment-report');
    expect(started.status).toBe(202);
    await api.drainJobs();
    const file = await d.download(started.body.data.document_id);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('cites a failed empty upload the capture did not pin as a warning, without a digest, and counts the control summary rows', async () => {
    const d = await arrangeDocuments(api, world);
    const control = d.idOf('sample-9001');
    // As an upload accepted before empty files were refused at the edge, and failed by its scan.
    const failed = await createEvidence(
      buildUploadEvidence({
        project_id: d.p.id,
        control_id: control,
        ...metadataOf({ title: 'Empty firewall export' }),
        file_status: 'error',
        error_code: 'empty_file',
        file_name: 'firewall.csv',
        size: 0,
        sha256: createHash('sha256').update('').digest('hex'),
        detected_type: null,
        created_by: world.op.userId,
        updated_by: world.op.userId,
      }),
    );
    await d.patch('sample-9001', IMPLEMENTED);
    await d.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    await d.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
    const assessment = {
      overall_assessed_outcome: 'ineffective',
      overall_assessed_rationale: 'Seen.',
      finding_severity: 'high',
      evidence_references: [failed.id],
    };
    expect((await d.patch('sample-9001', assessment, undefined, 'assessment')).status).toBe(200);
    const assessed = await d.transition('sample-9001', { transition: 'assessing_to_assessed', acknowledge_evidence_warnings: true });
    expect(assessed.status).toBe(200);
    const summaryRows = await api.request('GET', `/api/v1/projects/${d.p.id}/registers/${REGISTER_DEFINITION_IDS.controlSummary}/rows`, { token: d.token });
    const started = await d.generate('security-assessment-report');
    await api.drainJobs();
    const dir = scratchDir('sar-');
    writeFileSync(join(dir, 'report.pdf'), (await d.download(started.body.data.document_id)).bytes);
    const text = execFileSync('pdftotext', ['-raw', join(dir, 'report.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(text).toContain('Empty firewall export (Not pinned: the item was not ready when the control was assessed; the file failed (empty_file)');
    expect(text).not.toContain(failed.sha256!.slice(0, 16));
    expect(text).toContain(`Control summary Project ${summaryRows.body.data.length}`);
  });

  it('generates OSCAL documents of a real project that pass the NIST schemas and whose uuid references resolve', async () => {
    const d = await arrangeDocuments(api, world);
    await d.assess('sample-9001');
    for (const [key, schema] of [
      ['oscal-ssp', 'oscal_ssp_schema.json'],
      ['oscal-assessment-results', 'oscal_assessment-results_schema.json'],
      ['oscal-poam', 'oscal_complete_schema.json'],
    ] as const) {
      const started = await d.generate(key);
      expect(started.status, key).toBe(202);
      await api.drainJobs();
      const document = JSON.parse((await d.download(started.body.data.document_id)).bytes.toString('utf8'));
      const validate = oscalValidator(schema);
      expect(validate(document), `${key}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      const uuids = definedUuids(document);
      expect(
        uuidReferences(document).filter((r) => !uuids.has(r.value)),
        key,
      ).toEqual([]);
    }
  });

  it("generates the OSCAL POA&M from the project's POA&M rows: each row an item whose risk has the row's status, milestone and due date", async () => {
    const d = await arrangeDocuments(api, world);
    await d.assess('sample-9001');
    const contact = await api.request('POST', `/api/v1/organisations/${world.op.organisationId}/systems/${world.systemId}/contacts`, {
      token: world.op.org,
      headers: { 'Idempotency-Key': newUlid() },
      body: { name: 'Ada Operator' },
    });
    expect(contact.status).toBe(201);
    const row = await api.request('POST', `/api/v1/projects/${d.p.id}/registers/${REGISTER_DEFINITION_IDS.poam}/rows`, {
      token: d.token,
      headers: { 'Idempotency-Key': newUlid() },
      body: {
        data: {
          item_id: 'P-7',
          weakness: 'Logs are not forwarded to the central log service.',
          related_control: d.idOf('sample-9001'),
          severity: 'high',
          milestone: 'Forward the logs of every server.',
          responsible: contact.body.data.id,
          scheduled_completion: '2027-03-31',
          status: 'in_progress',
        },
      },
    });
    expect(row.status).toBe(201);
    const started = await d.generate('oscal-poam');
    expect(started.status).toBe(202);
    await api.drainJobs();
    const plan = JSON.parse((await d.download(started.body.data.document_id)).bytes.toString('utf8'))['plan-of-action-and-milestones'];
    expect(plan['poam-items']).toHaveLength(1);
    const [item] = plan['poam-items'];
    expect(item).toMatchObject({
      title: 'P-7: Logs are not forwarded to the central log service.',
      description: 'Logs are not forwarded to the central log service.',
    });
    const risk = plan.risks.find((r: { uuid: string }) => r.uuid === item['related-risks'][0]['risk-uuid']);
    expect(risk).toMatchObject({ status: 'remediating', deadline: '2027-03-31T00:00:00Z' });
    expect(risk.remediations[0].tasks[0]).toMatchObject({
      type: 'milestone',
      title: 'Forward the logs of every server.',
      timing: { 'on-date': { date: '2027-03-31T00:00:00Z' } },
    });
    const finding = plan.findings.find((f: { uuid: string }) => f.uuid === item['related-findings'][0]['finding-uuid']);
    expect(finding.target).toMatchObject({ type: 'statement-id', 'target-id': 'sample-9001_smt', status: { state: 'not-satisfied' } });
  });

  it("links an OSCAL document under the public URL its request knew, whatever the worker's own settings say", async () => {
    const d = await arrangeDocuments(api, world);
    const started = await d.generate('oscal-ssp');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const requested = publicUrl();
    const before = process.env.CONSOLE_ORIGIN;
    process.env.CONSOLE_ORIGIN = 'https://elsewhere.example.gov.au';
    resetSettings();
    try {
      await api.drainJobs();
    } finally {
      if (before === undefined) delete process.env.CONSOLE_ORIGIN;
      else process.env.CONSOLE_ORIGIN = before;
      resetSettings();
    }
    const plan = JSON.parse((await d.download(started.body.data.document_id)).bytes.toString('utf8'))['system-security-plan'];
    expect(plan['system-characteristics']['system-ids']).toEqual([{ 'identifier-type': `${requested}/ns/oscal`, id: world.systemId }]);
  });

  it('embeds the organisation logo and the project network diagram in the SSP once both are ready, and reports them met', async () => {
    const d = await arrangeDocuments(api, world);
    const logoUrl = `/api/v1/organisations/${world.op.organisationId}/logo`;
    const logoEtag = (await api.request('GET', logoUrl, { token: world.op.org })).headers.get('etag')!;
    const logo = await api.request('POST', logoUrl, {
      token: world.op.org,
      headers: { 'Idempotency-Key': newUlid(), 'If-Match': logoEtag },
      form: form(png(120, 60), 'logo.png'),
    });
    expect(logo.status).toBe(201);
    const artefactsEtag = (await api.request('GET', `${d.p.url}/artefacts`, { token: world.op.org })).headers.get('etag')!;
    const diagram = await api.request('POST', `${d.p.url}/artefacts/network-diagram`, {
      token: world.op.org,
      headers: { 'If-Match': artefactsEtag },
      form: form(png(400, 300), 'diagram.png'),
    });
    expect(diagram.status).toBe(202);
    await api.drainJobs();
    const ssp = (await api.request('GET', d.url(), { token: d.token })).body.data.catalogue[0];
    expect(ssp.dependencies.dependencies.filter((x: { required: boolean }) => !x.required).map((x: { status: string }) => x.status)).toEqual(['met', 'met']);
    const id = (await d.generate('ssp')).body.data.document_id;
    await api.drainJobs();
    const file = join(scratchDir('ssp-'), 'ssp.pdf');
    writeFileSync(file, (await d.download(id)).bytes);
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).trim().split('\n').slice(2);
    expect(images.map((line) => line.trim().split(/\s+/).slice(3, 5).join('x')).sort()).toEqual(['120x60', '400x300']);
  });
});
