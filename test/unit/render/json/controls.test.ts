import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CONTROLS_FORMAT, CONTROLS_FORMAT_VERSION, controlsJsonRenderer } from '../../../../lib/render/json/controls.js';
import { collector, documentModel } from '../../../support/document-model.js';

const model = documentModel({ key: 'controls-json', classification: 'TS' });

async function render(m = model): Promise<{ text: string; document: any }> {
  const sink = collector();
  await controlsJsonRenderer.render(m, sink.out);
  const text = sink.bytes().toString('utf8');
  return { text, document: JSON.parse(text) };
}

describe('controls JSON export', () => {
  it('names its format and version', async () => {
    const { document } = await render();
    expect([document.format, document.format_version]).toEqual([CONTROLS_FORMAT, CONTROLS_FORMAT_VERSION]);
  });

  it('lists every control of the project in catalogue order, and counts them', async () => {
    const { document } = await render();
    expect(document.controls.map((c: { catalogue_id: string }) => c.catalogue_id)).toEqual(model.controls.map((c) => c.catalogue_id));
    expect(document.control_count).toBe(1066);
  });

  it('carries the generation, the project, the system and the release', async () => {
    const { document } = await render();
    expect(document.generation).toMatchObject({ generation_id: model.document.generation_id, output: 'draft', generated_by: model.document.generated_by });
    expect(document.project.classification).toBe('TS');
    expect(document.system.short_code).toBe('CMS');
    expect(document.release.version).toBe('2025.12.9');
  });

  it('gives each control its applicability, implementation, assessment and evidence references', async () => {
    const { document } = await render();
    const source = model.controls.find((c) => c.evidence.length && c.applicability === 'y')!;
    const control = document.controls.find((c: { id: string }) => c.id === source.id);
    expect(control.applicability).toEqual({ value: 'y', origin: source.applicability_origin, comment: null });
    expect(control.implementation.status).toBe(source.implementation_status);
    expect(control.assessment.evidence_references).toEqual(source.assessment.evidence_references);
    expect(control.evidence[0].id).toBe(source.evidence[0]!.id);
  });

  it('writes UTF-8 text as it is', async () => {
    const first = model.controls[0]!;
    const { text, document } = await render({ ...model, controls: [{ ...first, title: 'Zugriffsschutz für Ämter — “quoted” 🔒' }] });
    expect(document.controls[0].title).toBe('Zugriffsschutz für Ämter — “quoted” 🔒');
    expect(text).toContain('für Ämter');
  });

  it('writes in many chunks and waits for a slow sink', async () => {
    const chunks: number[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.length);
        setImmediate(done);
      },
    });
    await controlsJsonRenderer.render(model, slow);
    expect(slow.writableFinished).toBe(true);
    expect(chunks.length).toBeGreaterThan(10);
  });

  it('rejects when the sink closes before the end', async () => {
    const closing = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        this.destroy();
        done();
      },
    });
    await expect(controlsJsonRenderer.render(model, closing)).rejects.toThrow();
  });

  it('rejects when the sink fails', async () => {
    const failing = new PassThrough();
    failing.destroy(new Error('upload failed'));
    await expect(controlsJsonRenderer.render(model, failing)).rejects.toThrow();
  });
});
