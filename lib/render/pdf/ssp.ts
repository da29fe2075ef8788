import type { DocumentControl } from '../../domain/document-model.js';
import { exclusionReason } from '../exclusion.js';
import { labelOf, OUTCOME_LABELS, STATUS_LABELS } from '../labels.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { formatDate, formatMonth, humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { placeholder, topicOf } from './report-links.js';
import { byPath, counts, groupHeadings, overview, recordTable, signatures, tableOr } from './sections.js';
import { DATE_SHARE, table } from './table.js';

/**
 * System Security Plan, in the order ASD's SSP guidance reads it: document control and approval,
 * the system (roles, purpose, users, interfaces, data flows, diagram), what it inherits from
 * providers and common controls, related plans, then how each applicable control is implemented
 * and why each other control is excluded.
 */
export const sspRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const applicable = model.controls.filter((c) => c.applicability === 'y');
  documentControl(w);
  overview(w);
  rolesAndContacts(w);
  systemDescription(w);
  const diagram = model.images.diagram;
  // The heading stays on the diagram's page rather than alone at the foot of the one before.
  if (diagram?.width && diagram.height) w.ensure(Math.min(520, (w.width * diagram.height) / diagram.width) + 48);
  w.heading(2, 'Network diagram');
  if (diagram) w.image(diagram.bytes, w.width, 520, diagram, `Network diagram of ${model.system.name}`);
  else w.paragraph(`No network diagram is registered for this system. ${placeholder('the network diagram')}`, 'italic', 9, { colour: COLOURS.muted });
  inherited(w, applicable);
  relatedPlans(w);

  w.heading(1, 'Implementation summary');
  w.paragraph(
    `${applicable.length} of the project's ${model.controls.length} controls apply to the system. The sections that follow describe how each applicable control is implemented, grouped by the guidelines, sections and topics of the ISM, with the control's revision and last update in the ${model.release.title} (${model.release.version}) and who is responsible for it.`,
  );
  table(
    w,
    [
      { header: 'Implementation status', share: 0.7 },
      { header: 'Controls', share: 0.3 },
    ],
    counts(applicable, (c) => humanise(c.implementation_status)).map(([status, n]) => [status, String(n)]),
  );

  let previous: ReturnType<typeof byPath>[number] | undefined;
  for (const group of byPath(applicable)) {
    groupHeadings(w, group, previous);
    previous = group;
    for (const control of group.controls) {
      implementation(w, control);
      await w.breathe();
    }
  }

  const excluded = model.controls.filter((c) => c.applicability === 'n');
  w.heading(1, 'Controls not applicable');
  tableOr(
    w,
    'Every control of the project applies to the system.',
    [
      { header: 'Control', share: 0.14, font: 'bold' },
      { header: 'Basis', share: 0.2 },
      { header: 'Reason', share: 0.66 },
    ],
    excluded.map((c) => [
      c.label,
      humanise(c.applicability_origin),
      exclusionReason(c, model.marking.name) ?? placeholder('the reason this control is excluded'),
    ]),
  );
});

/** Who is responsible for a control: its provider guidance's split, a common control, or the system owner. */
export function responsibilityOf(c: DocumentControl): string {
  if (c.assessment.outcome === 'common_control') return 'Common control';
  const split = [...new Set(c.provider_guidance.map((g) => g.responsibility))];
  if (split.length) return split.map((r) => (r === 'consumer' ? 'System owner' : humanise(r))).join(', ');
  return c.implementation_status === 'ec' ? labelOf(STATUS_LABELS, 'ec') : 'System owner';
}

function documentControl(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Document control');
  w.heading(2, 'Version history');
  const earlier = model.versions.filter((v) => v.key === model.document.key);
  const describe = (output: string, approver: string | null, at: string | null) =>
    output === 'final' && approver && at ? `Final, approved by ${approver} on ${formatDate(at)}` : 'Draft for review';
  table(
    w,
    [
      { header: 'Version', share: 0.1 },
      { header: 'Date', share: DATE_SHARE },
      { header: 'Description', share: 0.455 },
      { header: 'Prepared by', share: 0.26 },
    ],
    [
      ...earlier.map((v, i) => [
        String(i + 1),
        formatDate(v.generated_at),
        describe(v.output, v.approved_by?.name ?? null, v.approved_at),
        v.generated_by.name,
      ]),
      [
        String(earlier.length + 1),
        formatDate(model.document.generated_at),
        `${describe(model.document.output, model.document.approved_by?.name ?? null, model.document.approved_at)} (this version)`,
        model.document.generated_by.name,
      ],
    ],
  );
  const others = model.versions.filter((v) => v.key !== model.document.key);
  if (others.length) {
    w.paragraph(
      `Other documents generated for this project: ${others.map((v) => `${v.title} (${humanise(v.output).toLowerCase()}, ${formatDate(v.generated_at)})`).join('; ')}.`,
      'regular',
      9,
    );
  }
  w.heading(2, 'Approval');
  w.paragraph(
    model.document.output === 'final' && model.document.approved_by && model.document.approved_at
      ? `Approved for release by ${model.document.approved_by.name} on ${formatDate(model.document.approved_at)}.`
      : 'Draft: this plan is not yet approved. The authorising officer approves the system security plan before the system is authorised to operate.',
  );
  const owner = model.contacts.find((c) => /system owner/i.test(c.role ?? ''));
  const officer = model.contacts.find((c) => /authoris/i.test(c.role ?? ''));
  signatures(w, [
    ['System owner', owner?.name ?? placeholder('name')],
    ['Authorising officer', officer?.name ?? placeholder('name')],
  ]);
}

function rolesAndContacts(w: PdfLayout): void {
  const { model } = w;
  w.heading(2, 'Roles and contacts');
  if (!model.contacts.length) {
    w.paragraph(`The system has no contacts. ${placeholder('the system owner, authorising officer and other roles with their contact details')}`, 'italic', 9);
    return;
  }
  table(
    w,
    [
      { header: 'Name', share: 0.22, font: 'bold' },
      { header: 'Role', share: 0.22 },
      { header: 'Organisation', share: 0.22 },
      { header: 'Contact', share: 0.34 },
    ],
    model.contacts.map((c) => [c.name, c.role ?? '—', c.organisation_name ?? '—', [c.email, c.phone].filter(Boolean).join('\n') || '—']),
  );
}

const answer = (record: Record<string, unknown>, key: string): string | null =>
  typeof record[key] === 'string' && record[key] ? (record[key] as string) : null;

/** The system's purpose, users, interfaces and data flows, from its context answers and scope. */
function systemDescription(w: PdfLayout): void {
  const { model } = w;
  const system = model.context.system;
  const yesNo = (key: string, yes: string, no: string) => (answer(system, key) === 'yes' ? yes : answer(system, key) === 'no' ? no : null);
  const interfaces = [
    yesNo('internet_facing_services', 'The system offers internet-facing services.', 'The system offers no internet-facing services.'),
    yesNo('hosting_model', 'It is hosted by a cloud or managed service provider.', 'It is not hosted by a cloud or managed service provider.'),
    yesNo('third_party_privileged_access', 'Third parties hold privileged access to it.', 'No third party holds privileged access to it.'),
    ...model.provider_releases.map((r) => `It relies on ${r.provider_name} (${r.release_name}).`),
  ].filter((s): s is string => s !== null);
  w.heading(2, 'System purpose');
  w.paragraph(answer(system, 'system_description') ?? model.system.description ?? placeholder("the system's purpose"));
  w.heading(2, 'Users');
  w.paragraph(placeholder("the system's users: who uses it, how many, with what clearances and privileges"), 'italic', 9);
  w.heading(2, 'Interfaces');
  w.paragraph(interfaces.length ? interfaces.join(' ') : placeholder("the system's external interfaces"));
  w.paragraph(placeholder('the interfaces to other systems and networks, with their protocols and direction'), 'italic', 9);
  w.heading(2, 'Data flows');
  w.paragraph(answer(system, 'data_description') ?? placeholder('the information the system processes'));
  w.paragraph(placeholder('how information flows in and out of the system, and where it is stored'), 'italic', 9);
  w.heading(2, 'Scope');
  recordTable(w, model.scope, 'No scope is recorded.');
  w.heading(2, 'Organisation context');
  recordTable(w, model.context.organisation, 'No organisation context is recorded.');
  w.heading(2, 'System context');
  recordTable(w, model.context.system, 'No system context is recorded.');
}

/** Controls inherited from each selected provider release, with the provider's guidance, and the common controls. */
function inherited(w: PdfLayout, applicable: DocumentControl[]): void {
  const { model } = w;
  w.heading(1, 'Inherited and common controls');
  if (!model.provider_releases.length) w.paragraph('The project selects no provider release whose guidance applies to a control.');
  for (const release of model.provider_releases) {
    const controls = applicable.filter((c) => c.provider_guidance.some((g) => g.release_id === release.release_id && g.provider_id === release.provider_id));
    w.heading(2, `${release.provider_name}: ${release.release_name}${release.release_version ? ` (${release.release_version})` : ''}`);
    const when = [
      release.assessed_on ? `assessed ${formatDate(release.assessed_on)}` : null,
      release.published_on ? `published ${formatDate(release.published_on)}` : null,
    ]
      .filter(Boolean)
      .join(', ');
    w.paragraph(`${controls.length} applicable controls are inherited in whole or in part from this release${when ? ` (${when})` : ''}.`, 'regular', 9);
    if (!controls.length) continue;
    table(
      w,
      [
        { header: 'Control', share: 0.13, font: 'bold' },
        { header: 'Responsibility', share: 0.17 },
        { header: "Provider's guidance", share: 0.7 },
      ],
      controls.flatMap((c) =>
        c.provider_guidance
          .filter((g) => g.release_id === release.release_id && g.provider_id === release.provider_id)
          .map((g) => [c.label, humanise(g.responsibility), g.guidance]),
      ),
    );
  }
  w.heading(2, 'Common controls');
  const common = applicable.filter((c) => c.assessment.outcome === 'common_control' || c.implementation_status === 'ec');
  tableOr(
    w,
    'No applicable control is a common control.',
    [
      { header: 'Control', share: 0.13, font: 'bold' },
      { header: 'Topic', share: 0.52 },
      { header: 'Marked as', share: 0.35 },
    ],
    common.map((c) => [
      c.label,
      topicOf(c),
      c.assessment.outcome === 'common_control' ? labelOf(OUTCOME_LABELS, 'common_control') : labelOf(STATUS_LABELS, 'ec'),
    ]),
  );
}

function relatedPlans(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Related plans');
  if (!model.related_plans.length) {
    w.paragraph(
      `The project records none of the library's plans and procedures. ${placeholder('the related plans: incident response, continuity, and others')}`,
      'italic',
      9,
    );
    return;
  }
  table(
    w,
    [
      { header: 'Plan', share: 0.315, font: 'bold' },
      { header: 'Kind', share: 0.13 },
      { header: 'In force from', share: DATE_SHARE },
      { header: 'Review due', share: DATE_SHARE },
      { header: 'Last updated', share: DATE_SHARE },
    ],
    model.related_plans.map((p) => [
      p.title,
      humanise(p.kind),
      p.date_live ? formatDate(p.date_live) : '—',
      p.review_due ? formatDate(p.review_due) : '—',
      p.updated_at ? formatDate(p.updated_at) : '—',
    ]),
  );
}

function implementation(w: PdfLayout, control: DocumentControl): void {
  const { doc } = w;
  w.ensure(w.lineHeight('bold', 10.5) + w.lineHeight('italic', 8.5) * 2 + w.lineHeight('regular', 9.5) * 3 + 6);
  w.gap(4);
  const top = doc.y;
  w.tag('H4', () => {
    w.font('bold', 10.5, COLOURS.accent);
    doc.text(control.label, w.left, top, { lineBreak: false });
  });
  w.tag('P', () => {
    w.font('bold', 9, statusColour(control.implementation_status));
    w.fixed(humanise(control.implementation_status), w.left + 80, top + 1.2, w.width - 80, 'right');
  });
  doc.y = top + w.lineHeight('bold', 10.5);
  w.paragraph(control.statement, 'italic', 8.5, { colour: COLOURS.muted, after: 3 });
  const catalogue = [
    control.revision !== null ? `revision ${control.revision}` : null,
    control.updated ? `updated ${formatMonth(control.updated)}` : null,
  ].filter(Boolean);
  w.field('ISM', `${catalogue.length ? catalogue.join(', ') : 'no revision recorded'}; responsibility: ${responsibilityOf(control)}`, { size: 8.5 });
  if (control.essential_eight.length) w.field('Essential Eight', control.essential_eight.join(', '));
  if (control.implementation_summary) w.field('Summary', control.implementation_summary);
  if (control.implementation_description) w.paragraph(control.implementation_description, 'regular', 9.5, { after: 3 });
  else w.paragraph('No implementation description is recorded.', 'italic', 9, { colour: COLOURS.muted, after: 3 });
  const notes = control.implementation_notes;
  if (notes && (notes.proposed_outcome || notes.proposed_rationale || notes.proposed_maturity)) {
    const parts = [
      notes.proposed_outcome ? `proposed outcome ${humanise(notes.proposed_outcome).toLowerCase()}` : null,
      notes.proposed_maturity ? `proposed maturity ${notes.proposed_maturity}` : null,
    ].filter((p): p is string => p !== null);
    const text = [parts.length ? `${humanise(parts.join(', '))}.` : null, notes.proposed_rationale].filter(Boolean).join(' ');
    w.field('Implementation notes', text);
  }
  for (const guidance of control.provider_guidance) w.field('Provider guidance', guidance.guidance);
  w.separator(2);
}

function statusColour(status: string | null): string {
  if (status === 'implemented') return '#1e7b34';
  if (status === 'not_implemented') return COLOURS.marking;
  if (status === null) return COLOURS.muted;
  return '#9a6700';
}
