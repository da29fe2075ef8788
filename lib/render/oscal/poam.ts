import type { DocumentControl, DocumentModel, DocumentPoamRow } from '../../domain/document-model.js';
import { streamed } from '../json-stream.js';
import { labelOf, OUTCOME_LABELS } from '../labels.js';
import {
  controlRisk,
  dateTime,
  deadlineOf,
  findingOf,
  line,
  metadataOf,
  oscalRenderer,
  type Own,
  type Party,
  personParty,
  poamRowsOf,
  prose,
  type Resource,
  riskStatusOf,
  severityOf,
  some,
  systemComponent,
  systemIdOf,
  type Uuid,
} from './common.js';

/** An assessed control that is not satisfied: an open finding, which the plan must answer. */
const openFinding = (c: DocumentControl): boolean =>
  c.assessment.outcome !== null && !['not_assessed', 'effective', 'common_control'].includes(c.assessment.outcome);

/** The control a row names, among the project's. */
const controlOf = (model: DocumentModel, r: DocumentPoamRow): DocumentControl | undefined =>
  r.related_control === null ? undefined : model.controls.find((c) => c.id === r.related_control || c.label === r.related_control);

const responsibleParty = (uuid: Uuid, r: DocumentPoamRow): Party | null =>
  r.responsible ? { uuid: uuid('party', 'contact', r.responsible.id), type: 'person', name: line(r.responsible.name) ?? 'Unnamed contact' } : null;

/** A row's remediation: its milestone as a task due on the scheduled completion, by the responsible contact. */
function remediation(model: DocumentModel, r: DocumentPoamRow, uuid: Uuid, own: Own) {
  const party = responsibleParty(uuid, r);
  const due = r.scheduled_completion ? dateTime(r.scheduled_completion, model.document.generated_at) : null;
  const title = line(r.milestone) ?? `Remediation of ${r.item_id}`;
  return {
    uuid: uuid('response', r.id),
    lifecycle: 'planned',
    title,
    description: prose(r.milestone) ?? 'The row records no milestone.',
    props: some([...(r.completed_on ? [own('completed-on', r.completed_on)] : [])]),
    origins: party ? [{ actors: [{ type: 'party', 'actor-uuid': party.uuid }] }] : undefined,
    'required-assets': prose(r.resources_required) ? [{ description: r.resources_required! }] : undefined,
    tasks: due ? [{ uuid: uuid('task', r.id), type: 'milestone', title, timing: { 'on-date': { date: due } } }] : undefined,
  };
}

function rowRisk(model: DocumentModel, r: DocumentPoamRow, c: DocumentControl | undefined, uuid: Uuid, own: Own, actor: string) {
  return {
    uuid: uuid('risk', 'poam', r.id),
    title: `${r.item_id}${c ? ` (${c.label})` : ''}`,
    description: r.weakness,
    statement: c ? `${r.weakness}\n\n${c.label}: ${c.statement}` : r.weakness,
    props: [own('poam-status', r.status), ...(c ? [own('control-id', c.catalogue_id)] : [])],
    status: riskStatusOf([r]),
    characterizations: severityOf(model, r.severity, actor),
    deadline: deadlineOf(model, [r]),
    remediations: [remediation(model, r, uuid, own)],
  };
}

/** The risk of an open finding no row plans for yet: open, with the assessment's severity. */
function findingRisk(model: DocumentModel, c: DocumentControl, uuid: Uuid, own: Own, actor: string) {
  const { characterizations, ...texts } = controlRisk(model, c, actor);
  return { uuid: uuid('risk', 'finding', c.id), ...texts, props: [own('control-id', c.catalogue_id)], status: 'open', characterizations };
}

/** The system security plan this plan answers: the project's, which the product writes as `oscal-ssp`. */
function sspResource(model: DocumentModel, uuid: Uuid): Resource {
  return {
    uuid: uuid('resource', 'system-security-plan'),
    title: `System security plan of ${model.system.name}`,
    description: `The system security plan of the project ${model.project.name}, which the document catalogue generates as the OSCAL System Security Plan (oscal-ssp).`,
    props: [{ name: 'type', value: 'plan' }],
  };
}

/**
 * The project's plan of action and milestones as an OSCAL 1.1.3 Plan of Action and Milestones:
 * one POA&M item per row of the project's POA&M register, with a risk whose status is the row's
 * and whose remediation is its milestone, due on its scheduled completion; and one per open
 * finding (an assessed control that is not satisfied) that no row plans for yet.
 */
export const oscalPoamRenderer = oscalRenderer((model, uuid, own) => {
  const ssp = sspResource(model, uuid);
  const preparer = personParty(uuid, model.document.generated_by).uuid;
  const responsible = new Map(model.poam.flatMap((r) => (responsibleParty(uuid, r) ? [[r.responsible!.id, responsibleParty(uuid, r)!] as const] : [])));
  const rows = model.poam.map((r) => ({ row: r, control: controlOf(model, r) }));
  const findings = model.controls.filter(openFinding);
  const unplanned = findings.filter((c) => poamRowsOf(model, c).length === 0);
  const risksOf = (c: DocumentControl) => [
    ...poamRowsOf(model, c).map((r) => uuid('risk', 'poam', r.id)),
    ...(poamRowsOf(model, c).length ? [] : [uuid('risk', 'finding', c.id)]),
  ];
  const relatedFinding = (c: DocumentControl | undefined) => (c && openFinding(c) ? [{ 'finding-uuid': uuid('finding', c.id) }] : undefined);
  return {
    'plan-of-action-and-milestones': {
      uuid: uuid('plan-of-action-and-milestones'),
      metadata: metadataOf(model, uuid, {
        roles: responsible.size ? [{ id: 'poam-responsible', title: 'Responsible for a POA&M item' }] : [],
        parties: [...responsible.values()],
        responsible: responsible.size ? [{ 'role-id': 'poam-responsible', 'party-uuids': [...responsible.values()].map((p) => p.uuid) }] : [],
      }),
      'import-ssp': { href: `#${ssp.uuid}` },
      'system-id': systemIdOf(model),
      'local-definitions': { components: [systemComponent(model, uuid)] },
      risks: some([
        ...rows.map(({ row, control }) => rowRisk(model, row, control, uuid, own, preparer)),
        ...unplanned.map((c) => findingRisk(model, c, uuid, own, preparer)),
      ]),
      findings: some(findings.map((c) => ({ ...findingOf(c, uuid, own, false), 'related-risks': risksOf(c).map((u) => ({ 'risk-uuid': u })) }))),
      'poam-items': streamed(
        [
          ...rows.map((r) => ({ kind: 'row' as const, ...r })),
          ...unplanned.map((c) => ({ kind: 'finding' as const, control: c })),
          // OSCAL wants one item at least; a plan with nothing to do says so rather than invent a weakness.
          ...(rows.length || unplanned.length ? [] : [{ kind: 'none' as const }]),
        ],
        (item) =>
          item.kind === 'none'
            ? {
                uuid: uuid('poam-item', 'none'),
                title: 'No weakness to remediate',
                description: 'The plan of action and milestones of the project has no row, and the assessment has no open finding.',
                props: [own('poam-status', 'none')],
              }
            : item.kind === 'row'
              ? {
                  uuid: uuid('poam-item', item.row.id),
                  title: line(`${item.row.item_id}: ${item.row.weakness}`)!,
                  description: item.row.weakness,
                  props: [
                    own('item-id', item.row.item_id),
                    own('poam-row-id', item.row.id),
                    own('poam-status', item.row.status),
                    ...(item.row.severity ? [own('severity', item.row.severity)] : []),
                    ...(item.row.scheduled_completion ? [own('scheduled-completion', item.row.scheduled_completion)] : []),
                    ...(item.row.completed_on ? [own('completed-on', item.row.completed_on)] : []),
                  ],
                  'related-findings': relatedFinding(item.control),
                  'related-risks': [{ 'risk-uuid': uuid('risk', 'poam', item.row.id) }],
                }
              : {
                  uuid: uuid('poam-item', 'finding', item.control.id),
                  title: `${item.control.label}: ${labelOf(OUTCOME_LABELS, item.control.assessment.outcome)}`,
                  description: `${item.control.label} is an open finding that no row of the plan of action and milestones addresses yet.`,
                  props: [own('poam-status', 'unplanned'), ...(item.control.assessment.severity ? [own('severity', item.control.assessment.severity)] : [])],
                  'related-findings': relatedFinding(item.control),
                  'related-risks': [{ 'risk-uuid': uuid('risk', 'finding', item.control.id) }],
                },
      ),
      'back-matter': { resources: [ssp] },
    },
  };
});
