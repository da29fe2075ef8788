import type { DocumentControl, DocumentEvidence, DocumentModel } from '../../domain/document-model.js';
import { streamed, writeJson } from '../json-stream.js';
import { labelOf, OUTCOME_LABELS } from '../labels.js';
import type { Renderer } from '../renderer.js';
import {
  dateTime,
  IMPLEMENTATION_STATES,
  line,
  metadataOf,
  NS,
  own,
  type Party,
  personParty,
  prose,
  type Resource,
  some,
  systemComponent,
  type Uuid,
} from './common.js';
import { uuidsOf } from './ids.js';

/** Outcomes that satisfy a control; every other assessed outcome is a finding against it. */
const SATISFYING: readonly string[] = ['effective', 'common_control'];

const assessed = (c: DocumentControl): boolean => c.assessment.outcome !== null && c.assessment.outcome !== 'not_assessed';
const satisfied = (c: DocumentControl): boolean => SATISFYING.includes(c.assessment.outcome ?? '');
/** The evidence an assessment cites, among the control's items. */
const cited = (c: DocumentControl): DocumentEvidence[] => c.evidence.filter((e) => c.assessment.evidence_references.includes(e.id));

/** The engagement's assessors as parties, from the allowlisted engagement fields when they name them. */
function assessors(model: DocumentModel, uuid: Uuid): Party[] {
  const lead = line(model.engagement.lead_assessor_name);
  const organisation = line(model.engagement.assessor_organisation);
  return [
    ...(lead ? [{ uuid: uuid('party', 'lead-assessor'), type: 'person' as const, name: lead }] : []),
    ...(organisation ? [{ uuid: uuid('party', 'assessor-organisation'), type: 'organization' as const, name: organisation }] : []),
  ];
}

/** The engagement this assessment ran under, as the back-matter resource import-ap names: the product keeps no separate OSCAL plan. */
function planResource(model: DocumentModel, uuid: Uuid): Resource {
  const e = model.engagement;
  const facts = [
    ['Engagement reference', e.engagement_reference],
    ['Client', e.client_name],
    ['Assessor organisation', e.assessor_organisation],
    ['Lead assessor', e.lead_assessor_name],
    ['Start', e.start_date],
    ['End', e.end_date],
  ].filter((f): f is [string, string] => Boolean(f[1]));
  return {
    uuid: uuid('resource', 'assessment-plan'),
    title: `Assessment plan of the project ${model.project.name}`,
    description: [
      `The engagement under which ${model.system.name} was assessed against ${model.release.title} ${model.release.version}.`,
      ...facts.map(([k, v]) => `${k}: ${v}`),
    ].join('\n\n'),
    props: [{ name: 'type', value: 'plan' }],
  };
}

function evidenceResource(model: DocumentModel, c: DocumentControl, e: DocumentEvidence, uuid: Uuid): Resource {
  return {
    uuid: uuid('resource', 'evidence', e.id),
    title: e.title,
    props: [{ name: 'type', value: 'evidence' }, own('evidence-id', e.id), own('evidence-kind', e.kind)],
    // The project's download path of the item, relative to the API's base URL; the hash pins the bytes the assessment saw.
    rlinks: e.sha256
      ? [{ href: `projects/${model.project.id}/controls/${c.id}/evidence/${e.id}/download`, hashes: [{ algorithm: 'SHA-256', value: e.sha256 }] }]
      : undefined,
  };
}

function observation(c: DocumentControl, e: DocumentEvidence, uuid: Uuid, subject: string, fallback: string) {
  return {
    uuid: uuid('observation', c.id, e.id),
    title: e.title,
    description: `Evidence cited by the assessment of ${c.label}: ${e.title}${e.evidence_type ? ` (${e.evidence_type})` : ''}.`,
    props: e.sha256 ? [own('sha256', e.sha256)] : undefined,
    methods: ['EXAMINE'],
    subjects: [{ 'subject-uuid': subject, type: 'component' }],
    'relevant-evidence': [{ href: `#${uuid('resource', 'evidence', e.id)}`, description: `${e.title} (${e.kind}, ${e.status})` }],
    collected: dateTime(e.collected_on ?? e.updated_at, fallback),
  };
}

function risk(c: DocumentControl, uuid: Uuid, actor: string) {
  const outcome = labelOf(OUTCOME_LABELS, c.assessment.outcome);
  return {
    uuid: uuid('risk', c.id),
    title: `${c.label} not satisfied: ${outcome}`,
    description: prose(c.assessment.rationale) ?? `${c.label} was assessed as ${outcome}.`,
    statement: `${c.label} is not satisfied (${outcome}), so the system does not meet this requirement: ${c.statement}`,
    status: 'open',
    characterizations: c.assessment.severity
      ? [{ origin: { actors: [{ type: 'party', 'actor-uuid': actor }] }, facets: [{ name: 'severity', system: NS, value: c.assessment.severity }] }]
      : undefined,
    'related-observations': some(cited(c).map((e) => ({ 'observation-uuid': uuid('observation', c.id, e.id) }))),
  };
}

function finding(c: DocumentControl, uuid: Uuid) {
  const ok = satisfied(c);
  const state = c.implementation_status ? IMPLEMENTATION_STATES[c.implementation_status] : undefined;
  return {
    uuid: uuid('finding', c.id),
    title: `${c.label}: ${labelOf(OUTCOME_LABELS, c.assessment.outcome)}`,
    description: prose(c.assessment.rationale) ?? `${c.label} was assessed as ${labelOf(OUTCOME_LABELS, c.assessment.outcome)}; no rationale is recorded.`,
    props: [
      own('outcome', c.assessment.outcome!),
      ...(c.assessment.severity ? [own('severity', c.assessment.severity)] : []),
      ...(c.assessment.maturity_level ? [own('maturity-level', c.assessment.maturity_level)] : []),
    ],
    target: {
      type: 'objective-id',
      'target-id': c.catalogue_id,
      status: { state: ok ? 'satisfied' : 'not-satisfied', reason: ok ? 'pass' : 'fail' },
      'implementation-status': state ? { state } : undefined,
    },
    'related-observations': some(cited(c).map((e) => ({ 'observation-uuid': uuid('observation', c.id, e.id) }))),
    'related-risks': ok ? undefined : [{ 'risk-uuid': uuid('risk', c.id) }],
    // Assessor notes reach the model only when the generation options show them.
    remarks: prose(c.assessment.assessor_notes) ?? undefined,
  };
}

/**
 * The assessment as OSCAL 1.1.3 Assessment Results: one result whose reviewed controls are the
 * assessed ones, an observation per cited evidence item, a finding per assessed control (satisfied
 * or not, by its ISM OSCAL id) and a risk per control that is not satisfied.
 */
export const oscalAssessmentResultsRenderer: Renderer = {
  format: 'json',
  mediaType: 'application/json',
  extension: 'json',
  async render(model, out) {
    const uuid = uuidsOf(model.document.generation_id);
    const team = assessors(model, uuid);
    const actor = team[0]?.uuid ?? personParty(uuid, model.document.generated_by).uuid;
    const component = systemComponent(model, uuid);
    const plan = planResource(model, uuid);
    const controls = model.controls.filter(assessed);
    const evidence = controls.flatMap((c) => cited(c).map((e) => [c, e] as const));
    const start = dateTime(model.engagement.start_date, model.document.generated_at);
    const end = model.engagement.end_date ? dateTime(model.engagement.end_date, model.document.generated_at) : undefined;
    await writeJson(out, {
      'assessment-results': {
        uuid: uuid('assessment-results'),
        metadata: metadataOf(model, uuid, {
          roles: team.length ? [{ id: 'assessor', title: 'Assessor' }] : [],
          parties: team,
          responsible: team.length ? [{ 'role-id': 'assessor', 'party-uuids': team.map((p) => p.uuid) }] : [],
        }),
        'import-ap': { href: `#${plan.uuid}` },
        results: [
          {
            uuid: uuid('result'),
            title: `Assessment of ${model.system.name} against ${model.release.title} ${model.release.version}`,
            description: `The assessment of the project ${model.project.name} at ${model.marking.name}: ${controls.length} of ${model.controls.length} controls assessed.`,
            start,
            end: end && Date.parse(end) >= Date.parse(start) ? end : undefined,
            'local-definitions': { components: [component] },
            'reviewed-controls': {
              'control-selections': [
                controls.length
                  ? { 'include-controls': controls.map((c) => ({ 'control-id': c.catalogue_id })) }
                  : { description: 'No control has been assessed yet.' },
              ],
            },
            observations: streamed(evidence, ([c, e]) => observation(c, e, uuid, component.uuid, model.document.generated_at)),
            risks: streamed(
              controls.filter((c) => !satisfied(c)),
              (c) => risk(c, uuid, actor),
            ),
            findings: streamed(controls, (c) => finding(c, uuid)),
          },
        ],
        'back-matter': { resources: [plan, ...evidence.map(([c, e]) => evidenceResource(model, c, e, uuid))] },
      },
    });
  },
};
