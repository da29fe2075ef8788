import { describe, expect, it } from 'vitest';
import type { DocumentModel } from '../../../../lib/domain/document-model.js';
import { oscalPoamRenderer } from '../../../../lib/render/oscal/poam.js';
import { documentModel } from '../../../support/document-model.js';
import { definedUuids, ismStatementIds, oscalValidator, renderJson, uuidReferences, valuesOf } from '../../../support/oscal.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[45][0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$/;
const NS = 'https://assess.example.gov.au/ns/oscal';
const model = documentModel({ key: 'oscal-poam', classification: 'P' });
const document = await renderJson(oscalPoamRenderer, model);
const plan = document['plan-of-action-and-milestones'];
const open = model.controls.filter((c) => ['ineffective', 'no_visibility', 'not_implemented'].includes(c.assessment.outcome ?? ''));
const rowControl = (related: string | null) => model.controls.find((c) => c.id === related || c.label === related);
const planned = (c: { id: string; label: string }) => model.poam.some((r) => r.related_control === c.id || r.related_control === c.label);
interface Item {
  uuid: string;
  title: string;
  description: string;
  props?: { name: string; value: string }[];
  'related-risks': { 'risk-uuid': string }[];
  'related-findings'?: { 'finding-uuid': string }[];
}
const items: Item[] = plan['poam-items'];
const propOf = (item: Item, name: string) => item.props?.find((p) => p.name === name)?.value;
const byUuid = (list: { uuid: string }[], uuid: string): any => list.find((x) => x.uuid === uuid)!;

describe('OSCAL Plan of Action and Milestones', () => {
  it('validates against the official OSCAL 1.1.3 complete schema', () => {
    const validate = oscalValidator('oscal_complete_schema.json');
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
  });

  it('fails validation when an item loses its title, so the validation runs', () => {
    const broken = structuredClone(document);
    delete broken['plan-of-action-and-milestones']['poam-items'][0].title;
    expect(oscalValidator('oscal_complete_schema.json')(broken)).toBe(false);
  });

  it('writes one item per POA&M row, in register order, with its id, weakness, status and severity', () => {
    const rows = items.filter((i) => propOf(i, 'poam-row-id'));
    expect(rows.map((i) => [propOf(i, 'item-id'), i.description, propOf(i, 'poam-status'), propOf(i, 'severity') ?? null])).toEqual(
      model.poam.map((r) => [r.item_id, r.weakness, r.status, r.severity]),
    );
  });

  it("gives each row's risk the row's status, due date and milestone, by the responsible contact", () => {
    const risks = items.filter((i) => propOf(i, 'poam-row-id')).map((i) => byUuid(plan.risks, i['related-risks'][0]!['risk-uuid']));
    const status = { open: 'open', in_progress: 'remediating', completed: 'closed', cancelled: 'open' } as const;
    expect(risks.map((r) => r.status)).toEqual(model.poam.map((r) => status[r.status as keyof typeof status]));
    const row = model.poam.find((r) => r.status === 'in_progress' && r.milestone && r.scheduled_completion && r.responsible)!;
    const risk = risks[model.poam.indexOf(row)];
    expect(risk.deadline).toBe(`${row.scheduled_completion}T00:00:00Z`);
    const [remediation] = risk.remediations;
    expect(remediation.tasks).toEqual([
      { uuid: expect.stringMatching(UUID), type: 'milestone', title: row.milestone, timing: { 'on-date': { date: `${row.scheduled_completion}T00:00:00Z` } } },
    ]);
    const party = plan.metadata.parties.find((p: { uuid: string }) => p.uuid === remediation.origins[0].actors[0]['actor-uuid']);
    expect(party).toMatchObject({ type: 'person', name: row.responsible!.name });
  });

  it('sets no deadline on a row that is completed or cancelled', () => {
    const closed = model.poam.filter((r) => r.status === 'completed' || r.status === 'cancelled');
    expect(closed.length).toBeGreaterThan(0);
    const risks = closed.map((r) => plan.risks.find((x: { description: string }) => x.description === r.weakness));
    expect(risks.map((r: { deadline?: string }) => r.deadline)).toEqual(closed.map(() => undefined));
  });

  it("relates a row to the open finding of its control, named by ULID or ISM code, at the control's statement", () => {
    const item = items.find((i) => propOf(i, 'poam-row-id') === model.poam[1]!.id);
    const control = rowControl(model.poam[1]!.related_control)!;
    expect(model.poam[1]!.related_control).toBe(control.label);
    const finding = byUuid(plan.findings, item!['related-findings']![0]!['finding-uuid']);
    expect(finding.target).toMatchObject({
      type: 'statement-id',
      'target-id': ismStatementIds().get(control.catalogue_id),
      status: { state: 'not-satisfied' },
    });
  });

  it('writes a finding per open finding, and an item with an open risk for each that no row plans for', () => {
    expect(plan.findings).toHaveLength(open.length);
    const unplanned = open.filter((c) => !planned(c));
    const findingItems = items.filter((i) => propOf(i, 'poam-status') === 'unplanned');
    expect(findingItems.map((i) => i.title.split(':')[0])).toEqual(unplanned.map((c) => c.label));
    expect(findingItems.map((i) => byUuid(plan.risks, i['related-risks'][0]!['risk-uuid']).status)).toEqual(unplanned.map(() => 'open'));
  });

  it('identifies the system in the product namespace and imports the SSP through its back matter', () => {
    expect(plan['system-id']).toEqual({ 'identifier-type': NS, id: model.system.id });
    const resource = plan['back-matter'].resources.find((r: { uuid: string }) => `#${r.uuid}` === plan['import-ssp'].href);
    expect(resource.title).toBe(`System security plan of ${model.system.name}`);
  });

  it('resolves every uuid reference inside the document, gives every uuid the OSCAL pattern and no uuid twice', () => {
    const defined = definedUuids(document);
    expect(uuidReferences(document).filter((r) => !defined.has(r.value))).toEqual([]);
    const uuids = valuesOf(document, 'uuid').map((v) => v.value as string);
    expect(uuids.filter((u) => !UUID.test(u))).toEqual([]);
    expect(new Set(uuids).size).toBe(uuids.length);
  });

  it('says so in one item when there is neither a row nor an open finding, and still validates', async () => {
    const quiet: DocumentModel = {
      ...model,
      poam: [],
      controls: model.controls.map((c) => ({ ...c, assessment: { ...c.assessment, outcome: c.assessment.outcome && 'effective' } })),
    };
    const empty = await renderJson(oscalPoamRenderer, quiet);
    expect(empty['plan-of-action-and-milestones']['poam-items']).toEqual([
      {
        uuid: expect.stringMatching(UUID),
        title: 'No weakness to remediate',
        description: 'The plan of action and milestones of the project has no row, and the assessment has no open finding.',
        props: [{ name: 'poam-status', value: 'none', ns: NS }],
      },
    ]);
    expect(oscalValidator('oscal_complete_schema.json')(empty)).toBe(true);
  });

  it('gives the same document for the same generation', async () => {
    expect(await renderJson(oscalPoamRenderer, model)).toEqual(document);
  });
});
