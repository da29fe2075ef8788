import type { DocumentControl, DocumentEvidence, DocumentModel } from '../../domain/document-model.js';
import { streamed } from '../json-stream.js';
import {
  controlRisk,
  dateTime,
  deadlineOf,
  evidenceHref,
  findingOf,
  line,
  metadataOf,
  oscalRenderer,
  type Own,
  type Party,
  personParty,
  pinnedDigest,
  poamRowsOf,
  prose,
  type Resource,
  riskStatusOf,
  some,
  statementIdOf,
  systemComponent,
  type Uuid,
} from './common.js';

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

/** What an item is when the assessment cites it without pinning its bytes. */
const UNPINNED: Readonly<Record<string, string>> = {
  upload: 'a file whose bytes are not pinned',
  file_link: 'a link to a file whose bytes are not pinned',
  external_reference: 'an external reference, stored but never fetched, so nothing verifies it',
  register_link: 'a live link to a register, read when followed',
  library_link: 'a live link to a library document, read when followed',
  repository_link: 'a live link to a repository, read when followed',
};

/** A pinned file as a back-matter resource: the download address of the pinned version, with the digest of the bytes the assessment saw. */
function evidenceResource(model: DocumentModel, c: DocumentControl, e: DocumentEvidence, digest: string, uuid: Uuid, own: Own): Resource {
  return {
    uuid: uuid('resource', 'evidence', e.id),
    title: e.title,
    props: [{ name: 'type', value: 'evidence' }, own('evidence-id', e.id), own('evidence-kind', e.kind)],
    rlinks: [{ href: `${evidenceHref(model, c.id, e)}/download`, hashes: [{ algorithm: 'SHA-256', value: digest }] }],
  };
}

/**
 * A cited item as an observation. A pinned file is cited through its back-matter resource, which
 * carries the digest; another pinned item (a text reference) at its pinned version's address; and
 * anything else for what it is, at the API's address of the live item.
 */
function observation(model: DocumentModel, c: DocumentControl, e: DocumentEvidence, uuid: Uuid, own: Own, subject: string) {
  const digest = pinnedDigest(e);
  const what = digest ? `${e.kind}, pinned by SHA-256` : `${UNPINNED[e.kind] ?? e.kind}, ${e.status}`;
  return {
    uuid: uuid('observation', c.id, e.id),
    title: e.title,
    description: `Evidence cited by the assessment of ${c.label}: ${e.title}${e.evidence_type ? ` (${e.evidence_type})` : ''}.`,
    props: [own('evidence-status', e.status), ...(digest ? [own('sha256', digest)] : [])],
    methods: ['EXAMINE'],
    subjects: [{ 'subject-uuid': subject, type: 'component' }],
    'relevant-evidence': [{ href: digest ? `#${uuid('resource', 'evidence', e.id)}` : evidenceHref(model, c.id, e), description: `${e.title} (${what})` }],
    collected: dateTime(e.collected_on ?? e.updated_at, model.document.generated_at),
  };
}

function risk(model: DocumentModel, c: DocumentControl, uuid: Uuid, own: Own, actor: string) {
  const rows = poamRowsOf(model, c);
  const { characterizations, ...texts } = controlRisk(model, c, actor);
  return {
    uuid: uuid('risk', c.id),
    ...texts,
    props: some(rows.flatMap((r) => [own('poam-item', r.item_id), own('poam-status', r.status)])),
    status: riskStatusOf(rows),
    characterizations,
    deadline: deadlineOf(model, rows),
    'related-observations': some(cited(c).map((e) => ({ 'observation-uuid': uuid('observation', c.id, e.id) }))),
  };
}

function finding(c: DocumentControl, uuid: Uuid, own: Own) {
  const ok = satisfied(c);
  return {
    ...findingOf(c, uuid, own, ok),
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
export const oscalAssessmentResultsRenderer = oscalRenderer((model, uuid, own) => {
  const team = assessors(model, uuid);
  const actor = team[0]?.uuid ?? personParty(uuid, model.document.generated_by).uuid;
  const component = systemComponent(model, uuid);
  const plan = planResource(model, uuid);
  const controls = model.controls.filter(assessed);
  const evidence = controls.flatMap((c) => cited(c).map((e) => [c, e] as const));
  const start = dateTime(model.engagement.start_date, model.document.generated_at);
  const end = model.engagement.end_date ? dateTime(model.engagement.end_date, model.document.generated_at) : undefined;
  return {
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
                ? { 'include-controls': controls.map((c) => ({ 'control-id': c.catalogue_id, 'statement-ids': [statementIdOf(c)] })) }
                : { description: 'No control has been assessed yet.' },
            ],
          },
          observations: streamed(evidence, ([c, e]) => observation(model, c, e, uuid, own, component.uuid)),
          risks: streamed(
            controls.filter((c) => !satisfied(c)),
            (c) => risk(model, c, uuid, own, actor),
          ),
          findings: streamed(controls, (c) => finding(c, uuid, own)),
        },
      ],
      'back-matter': {
        resources: [
          plan,
          ...evidence.flatMap(([c, e]) => {
            const digest = pinnedDigest(e);
            return digest ? [evidenceResource(model, c, e, digest, uuid, own)] : [];
          }),
        ],
      },
    },
  };
});
