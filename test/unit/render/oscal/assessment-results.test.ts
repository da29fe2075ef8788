import { describe, expect, it } from 'vitest';
import type { DocumentEvidence } from '../../../../lib/domain/document-model.js';
import { oscalAssessmentResultsRenderer } from '../../../../lib/render/oscal/assessment-results.js';
import { documentModel } from '../../../support/document-model.js';
import { definedUuids, ismCatalogueIds, ismStatementIds, oscalValidator, renderJson, uuidReferences, valuesOf } from '../../../support/oscal.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[45][0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$/;
const model = documentModel({ key: 'oscal-assessment-results', classification: 'S' });
const ar = await renderJson(oscalAssessmentResultsRenderer, model);
const result = ar['assessment-results'].results[0];
const assessed = model.controls.filter((c) => c.assessment.outcome !== null && c.assessment.outcome !== 'not_assessed');
const pinnedVersion = (e: DocumentEvidence) => (e.citation.kind === 'pinned' ? e.citation.version : Number.NaN);
const findingOf = (id: string) => result.findings.find((f: { target: { 'target-id': string } }) => f.target['target-id'] === `${id}_smt`);
const riskOf = (c: { catalogue_id: string }) =>
  result.risks.find((r: { uuid: string }) => r.uuid === findingOf(c.catalogue_id)['related-risks'][0]['risk-uuid']);

describe('OSCAL Assessment Results', () => {
  it('validates against the official OSCAL 1.1.3 Assessment Results schema', () => {
    const validate = oscalValidator('oscal_assessment-results_schema.json');
    expect(validate(ar), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
  });

  it('fails validation when a finding loses its target, so the validation runs', () => {
    const broken = structuredClone(ar);
    delete broken['assessment-results'].results[0].findings[0].target;
    expect(oscalValidator('oscal_assessment-results_schema.json')(broken)).toBe(false);
  });

  it('keeps to OSCAL string rules when the engagement names carry surrounding whitespace and texts are blank', async () => {
    const untidy = {
      ...model,
      engagement: { ...model.engagement, lead_assessor_name: ' Alex\tAssessor ', assessor_organisation: '  ' },
      controls: model.controls.map((c) => ({ ...c, assessment: { ...c.assessment, rationale: '', assessor_notes: c.assessment.assessor_notes && ' ' } })),
    };
    const validate = oscalValidator('oscal_assessment-results_schema.json');
    expect(validate(await renderJson(oscalAssessmentResultsRenderer, untidy)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('refers only to ids of the ISM catalogue, in reviewed controls and finding targets', () => {
    const ids = [...valuesOf(ar, 'control-id'), ...valuesOf(ar, 'target-id'), ...valuesOf(ar, 'statement-ids')].flatMap((v) => v.value as string);
    expect(ids.length).toBeGreaterThan(2 * assessed.length);
    expect(ids.filter((id) => !ismCatalogueIds().has(id))).toEqual([]);
  });

  it("targets each finding at its control's statement part in the ISM catalogue", () => {
    const targets = result.findings.map((f: { target: { type: string; 'target-id': string } }) => f.target);
    expect(targets.map((t: { type: string }) => t.type)).toEqual(assessed.map(() => 'statement-id'));
    expect(targets.map((t: { 'target-id': string }) => t['target-id'])).toEqual(assessed.map((c) => ismStatementIds().get(c.catalogue_id)));
  });

  it('resolves every uuid reference inside the document', () => {
    const defined = definedUuids(ar);
    const references = uuidReferences(ar);
    expect(references.length).toBeGreaterThan(assessed.length);
    expect(references.filter((r) => !defined.has(r.value))).toEqual([]);
  });

  it('resolves every role id to a role of the metadata', () => {
    const roles = new Set(ar['assessment-results'].metadata.roles.map((r: { id: string }) => r.id));
    expect(valuesOf(ar, 'role-id').filter((r) => !roles.has(r.value as string))).toEqual([]);
  });

  it('gives every uuid the OSCAL pattern and no uuid twice', () => {
    const uuids = valuesOf(ar, 'uuid').map((v) => v.value as string);
    expect(uuids.filter((u) => !UUID.test(u))).toEqual([]);
    expect(new Set(uuids).size).toBe(uuids.length);
  });

  it('imports the assessment plan through a back-matter resource that describes the engagement', () => {
    const href: string = ar['assessment-results']['import-ap'].href;
    const resource = ar['assessment-results']['back-matter'].resources.find((r: { uuid: string }) => `#${r.uuid}` === href);
    expect(resource.description).toContain('Engagement reference: ENG-2026-01');
  });

  it('writes one finding per assessed control, satisfied or not from the outcome', () => {
    expect(result.findings).toHaveLength(assessed.length);
    const failing = assessed.find((c) => c.assessment.outcome === 'ineffective')!;
    const passing = assessed.find((c) => c.assessment.outcome === 'effective')!;
    expect(findingOf(failing.catalogue_id).target.status.state).toBe('not-satisfied');
    expect(findingOf(passing.catalogue_id).target.status.state).toBe('satisfied');
  });

  it('writes a risk with the severity for each failing outcome', () => {
    const failing = assessed.filter((c) => !['effective', 'common_control'].includes(c.assessment.outcome!));
    expect(result.risks).toHaveLength(failing.length);
    expect(riskOf(failing[0]!).characterizations[0].facets[0]).toMatchObject({ name: 'severity', value: failing[0]!.assessment.severity });
  });

  it('gives each risk the status of its POA&M row, named by ULID or by ISM code', () => {
    const byRow = model.poam.map((row) => {
      const control = assessed.find((c) => c.id === row.related_control || c.label === row.related_control)!;
      return [row.status, riskOf(control).status, riskOf(control).props] as const;
    });
    expect(byRow.map(([poam, risk]) => [poam, risk])).toEqual(
      model.poam.map((r) => [r.status, { open: 'open', in_progress: 'remediating', completed: 'closed', cancelled: 'open' }[r.status]]),
    );
    expect(byRow[1]![2]).toContainEqual({ name: 'poam-status', value: 'in_progress', ns: 'https://assess.example.gov.au/ns/oscal' });
  });

  it('leaves a risk open when no POA&M row plans for it', () => {
    const planned = new Set(model.poam.map((r) => r.related_control));
    const unplanned = assessed.find((c) => !['effective', 'common_control'].includes(c.assessment.outcome!) && !planned.has(c.id) && !planned.has(c.label))!;
    expect(riskOf(unplanned)).toMatchObject({ status: 'open' });
    expect(riskOf(unplanned).props).toBeUndefined();
  });

  it('marks a control effective through a provider, or a common control, as inherited', async () => {
    const [ec, common] = assessed.filter((c) => c.implementation_status !== 'ec' && c.assessment.outcome === 'effective');
    const document = await renderJson(oscalAssessmentResultsRenderer, {
      ...model,
      controls: model.controls.map((c) =>
        c.id === ec!.id
          ? { ...c, implementation_status: 'ec' }
          : c.id === common!.id
            ? { ...c, assessment: { ...c.assessment, outcome: 'common_control' } }
            : c,
      ),
    });
    const origination = (id: string) =>
      document['assessment-results'].results[0].findings
        .find((f: { target: { 'target-id': string } }) => f.target['target-id'] === `${id}_smt`)
        .props.filter((p: { name: string }) => p.name === 'control-origination');
    expect([origination(ec!.catalogue_id), origination(common!.catalogue_id)]).toEqual([
      [{ name: 'control-origination', value: 'inherited', ns: 'https://assess.example.gov.au/ns/oscal' }],
      [{ name: 'control-origination', value: 'inherited', ns: 'https://assess.example.gov.au/ns/oscal' }],
    ]);
  });

  it("writes one observation per cited evidence item, with the SHA-256 of a pinned file at its pinned version's absolute download address", () => {
    const cited = assessed.flatMap((c) => c.evidence.filter((e) => c.assessment.evidence_references.includes(e.id)));
    expect(result.observations).toHaveLength(cited.length);
    const control = assessed.find((c) => c.evidence.some((e) => e.citation.kind === 'pinned' && e.kind === 'upload'))!;
    const pinned = control.evidence[0]!;
    const observation = result.observations.find((o: { title: string }) => o.title === pinned.title);
    const resource = ar['assessment-results']['back-matter'].resources.find((r: { uuid: string }) => `#${r.uuid}` === observation['relevant-evidence'][0].href);
    expect(resource.rlinks).toEqual([
      {
        href: `https://assess.example.gov.au/api/v1/projects/${model.project.id}/controls/${control.id}/evidence/${pinned.id}/versions/${pinnedVersion(pinned)}/download`,
        hashes: [{ algorithm: 'SHA-256', value: 'a'.repeat(64) }],
      },
    ]);
  });

  it("cites a pinned item without bytes at its pinned version's API address, with no back-matter resource", async () => {
    const control = assessed.find((c) => c.evidence.some((e) => e.citation.kind === 'pinned' && e.kind === 'upload'))!;
    const note: DocumentEvidence = {
      ...control.evidence[0]!,
      kind: 'text_reference',
      citation: { kind: 'pinned', captured_at: '2026-10-20T04:05:06.000Z', version: 3, sha256: null },
    };
    const document = await renderJson(oscalAssessmentResultsRenderer, {
      ...model,
      controls: model.controls.map((c) => (c.id === control.id ? { ...c, evidence: [note] } : c)),
    });
    const observation = document['assessment-results'].results[0].observations.find((o: { title: string }) => o.title === note.title);
    expect(observation['relevant-evidence'][0].href).toBe(
      `https://assess.example.gov.au/api/v1/projects/${model.project.id}/controls/${control.id}/evidence/${note.id}/versions/3`,
    );
    expect(JSON.stringify(document['assessment-results']['back-matter'])).not.toContain(note.id);
  });

  it('cites a failed upload at its API address, with no hash and no back-matter resource', async () => {
    const control = assessed.find((c) => c.evidence.some((e) => e.citation.kind === 'pinned' && e.kind === 'upload'))!;
    const failed: DocumentEvidence = {
      ...control.evidence[0]!,
      status: 'error',
      error_code: 'empty_file',
      citation: { kind: 'acknowledged_warning', captured_at: '2026-10-20T04:05:06.000Z', reason: 'not_ready' },
    };
    const document = await renderJson(oscalAssessmentResultsRenderer, {
      ...model,
      controls: model.controls.map((c) => (c.id === control.id ? { ...c, evidence: [failed] } : c)),
    });
    const observation = document['assessment-results'].results[0].observations.find((o: { uuid: string; title: string }) => o.title === failed.title);
    expect(observation['relevant-evidence'][0].href).toBe(
      `https://assess.example.gov.au/api/v1/projects/${model.project.id}/controls/${control.id}/evidence/${failed.id}`,
    );
    expect(JSON.stringify(document['assessment-results']['back-matter'])).not.toContain(failed.id);
  });

  it('cites an external reference for what it is, at its API address', () => {
    const control = assessed.find((c) => c.evidence.some((e) => e.kind === 'external_reference'))!;
    const observation = result.observations.find((o: { title: string }) => o.title === control.evidence[0]!.title);
    expect(observation['relevant-evidence'][0]).toEqual({
      href: `https://assess.example.gov.au/api/v1/projects/${model.project.id}/controls/${control.id}/evidence/${control.evidence[0]!.id}`,
      description: `${control.evidence[0]!.title} (an external reference, stored but never fetched, so nothing verifies it, ready)`,
    });
  });

  it('carries assessor notes as remarks when the model has them', () => {
    const noted = assessed.find((c) => c.assessment.assessor_notes)!;
    expect(findingOf(noted.catalogue_id).remarks).toBe(noted.assessment.assessor_notes);
  });

  it('leaves assessor notes out when the model says null', async () => {
    const redacted = await renderJson(oscalAssessmentResultsRenderer, documentModel({ classification: 'S', showAssessorNotes: false }));
    expect(valuesOf(redacted, 'remarks').filter((r) => String(r.value).includes('Assessor working note'))).toEqual([]);
    expect(redacted['assessment-results'].results[0].findings.every((f: object) => !('remarks' in f))).toBe(true);
  });

  it('validates before any control is assessed', async () => {
    const fresh = documentModel({ classification: 'S', limit: 30 });
    const unassessed = { ...fresh, controls: fresh.controls.map((c) => ({ ...c, assessment: { ...c.assessment, outcome: null, evidence_references: [] } })) };
    expect(oscalValidator('oscal_assessment-results_schema.json')(await renderJson(oscalAssessmentResultsRenderer, unassessed))).toBe(true);
  });

  it('attributes risks to the person who generated it when the engagement names no assessor', async () => {
    const bare = { ...model, engagement: { ...model.engagement, lead_assessor_name: null, assessor_organisation: null } };
    const document = await renderJson(oscalAssessmentResultsRenderer, bare);
    const actors = valuesOf(document, 'actor-uuid').map((a) => a.value);
    const preparer = document['assessment-results'].metadata['responsible-parties'].find((p: { 'role-id': string }) => p['role-id'] === 'prepared-by');
    expect(new Set(actors)).toEqual(new Set(preparer['party-uuids']));
  });

  it('gives the same document for the same generation', async () => {
    expect(await renderJson(oscalAssessmentResultsRenderer, model)).toEqual(ar);
  });
});
