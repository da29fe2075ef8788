import { describe, expect, it } from 'vitest';
import {
  CatalogueGenerationRequest,
  DOCUMENT_KEYS,
  effectiveGeneration,
  evaluateDependencies,
  GenerationRequest,
  outputFileName,
  requirementsMet,
  resolveOptions,
  type StoredGeneration,
} from '../../../lib/domain/documents.js';
import { buildGeneration } from '../../support/factories.js';

const READY = { populationStatus: 'completed', essentialEightTarget: 'ML2', assessedControls: 3, diagramReady: true, logoReady: true };

const generation = (over: Partial<StoredGeneration> = {}) => buildGeneration({ id: 'G1', requested_at: '2026-11-25T00:00:00.000Z', ...over });

describe('document dependencies', () => {
  it('are complete for every template of a populated, assessed project with an Essential Eight target', () => {
    for (const key of DOCUMENT_KEYS) expect(evaluateDependencies(key, READY).complete, key).toBe(true);
  });

  it('block every template while population is not completed', () => {
    for (const key of DOCUMENT_KEYS) expect(requirementsMet(key, { ...READY, populationStatus: 'running' }), key).toBe(false);
  });

  it('block only the assessment documents while no control is assessed', () => {
    const blocked = DOCUMENT_KEYS.filter((key) => !requirementsMet(key, { ...READY, assessedControls: 0 }));
    expect(blocked).toEqual(['security-assessment-report', 'oscal-assessment-results']);
  });

  it('report a missing diagram or logo without blocking', () => {
    const e = evaluateDependencies('ssp', { ...READY, diagramReady: false, logoReady: false });
    expect(e.complete).toBe(true);
    expect(e.dependencies.filter((d) => d.status === 'unmet').map((d) => [d.key, d.required])).toEqual([
      ['network_diagram', false],
      ['organisation_logo', false],
    ]);
  });

  it('block the Essential Eight report of a project without a target', () => {
    expect(requirementsMet('e8-assessment', { ...READY, essentialEightTarget: 'none' })).toBe(false);
  });
});

describe('generation requests', () => {
  it('default to a draft with the watermark and without notes', () => {
    expect(resolveOptions(GenerationRequest().parse({}))).toEqual({
      output: 'draft',
      draft_watermark: true,
      show_implementation_notes: false,
      show_assessor_notes: false,
    });
  });

  it('make final output of draft_watermark false with approval_confirmed', () => {
    expect(resolveOptions(GenerationRequest().parse({ generation_options: { draft_watermark: false }, approval_confirmed: true })).output).toBe('final');
  });

  it('refuse final output without approval and approval of a draft', () => {
    expect(GenerationRequest().safeParse({ generation_options: { draft_watermark: false } }).success).toBe(false);
    expect(GenerationRequest().safeParse({ approval_confirmed: true }).success).toBe(false);
  });

  it('refuse keys the contract rejects, such as a storage path or a maturity override', () => {
    expect(GenerationRequest().safeParse({ storage_path: 'x' }).success).toBe(false);
    expect(GenerationRequest().safeParse({ generation_options: { maturity_override: 'ML3' } }).success).toBe(false);
  });

  it('name a catalogue entry on the catalogue route only', () => {
    expect(CatalogueGenerationRequest().safeParse({ document_key: 'ssp' }).success).toBe(true);
    expect(CatalogueGenerationRequest().safeParse({ document_key: 'nope' }).success).toBe(false);
    expect(GenerationRequest().safeParse({ document_key: 'ssp' }).success).toBe(false);
  });
});

describe('effective generation status', () => {
  const now = new Date('2026-11-25T01:00:00.000Z');

  it('stays queued while its lease is live', () => {
    expect(effectiveGeneration(generation(), { generation_id: 'G1', lease_until: '2026-11-25T01:05:00.000Z' }, now).status).toBe('queued');
  });

  it('reads as abandoned once its lease expired', () => {
    expect(effectiveGeneration(generation({ status: 'running' }), { generation_id: 'G1', lease_until: '2026-11-25T00:59:00.000Z' }, now)).toMatchObject({
      status: 'failed',
      error_code: 'generation_abandoned',
      finished_at: '2026-11-25T00:59:00.000Z',
    });
  });

  it('reads as abandoned when another generation holds the lease', () => {
    expect(effectiveGeneration(generation(), { generation_id: 'G2', lease_until: '2026-11-25T01:05:00.000Z' }, now).error_code).toBe('generation_abandoned');
  });

  it('leaves a finished generation as it is', () => {
    expect(effectiveGeneration(generation({ status: 'completed' }), undefined, now).status).toBe('completed');
  });
});

it('names an output file from the system code, the key, the output and the time only', () => {
  expect(outputFileName('CMS', 'soa', 'final', '2026-11-25T01:02:03.456Z')).toBe('CMS-soa-final-20261125-010203.xlsx');
});
