import { describe, expect, it } from 'vitest';
import { oscalSspRenderer } from '../../../../lib/render/oscal/ssp.js';
import { documentModel } from '../../../support/document-model.js';
import { definedUuids, ismCatalogueIds, oscalValidator, renderJson, uuidReferences, valuesOf } from '../../../support/oscal.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[45][0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$/;
const model = documentModel({ key: 'oscal-ssp', classification: 'P' });
const ssp = await renderJson(oscalSspRenderer, model);
const plan = ssp['system-security-plan'];

describe('OSCAL System Security Plan', () => {
  it('validates against the official OSCAL 1.1.3 SSP schema', () => {
    const validate = oscalValidator('oscal_ssp_schema.json');
    expect(validate(ssp), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
  });

  it('fails validation when the document is broken, so the validation runs', () => {
    const broken = structuredClone(ssp);
    broken['system-security-plan']['control-implementation']['implemented-requirements'][0].uuid = 'not-a-uuid';
    expect(oscalValidator('oscal_ssp_schema.json')(broken)).toBe(false);
  });

  it('keeps to OSCAL string rules when names carry surrounding or inner whitespace and texts are blank', async () => {
    const untidy = {
      ...model,
      organisation: { ...model.organisation, name: ' Department of\nExamples ' },
      system: { ...model.system, name: 'Case  Management ', short_code: ' CMS', description: ' ' },
      project: { ...model.project, description: '' },
      document: { ...model.document, generated_by: { id: 'u', name: 'Alex Assessor ' } },
      controls: model.controls.map((c) => ({ ...c, implementation_description: '', applicability_comment: c.applicability === 'n' ? ' ' : null })),
    };
    const validate = oscalValidator('oscal_ssp_schema.json');
    expect(validate(await renderJson(oscalSspRenderer, untidy)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('refers only to control ids of the ISM catalogue', () => {
    const ids = valuesOf(ssp, 'control-id').map((v) => v.value);
    expect(ids.filter((id) => !ismCatalogueIds().has(id as string))).toEqual([]);
  });

  it('resolves every uuid reference inside the document', () => {
    const defined = definedUuids(ssp);
    const references = uuidReferences(ssp);
    expect(references.length).toBeGreaterThan(model.controls.length);
    expect(references.filter((r) => !defined.has(r.value))).toEqual([]);
  });

  it('resolves every role id to a role of the metadata', () => {
    const roles = new Set(plan.metadata.roles.map((r: { id: string }) => r.id));
    expect(valuesOf(ssp, 'role-id').filter((r) => !roles.has(r.value as string))).toEqual([]);
  });

  it('gives every uuid the OSCAL pattern and no uuid twice', () => {
    const uuids = valuesOf(ssp, 'uuid').map((v) => v.value as string);
    expect(uuids.filter((u) => !UUID.test(u))).toEqual([]);
    expect(new Set(uuids).size).toBe(uuids.length);
  });

  it('imports the baseline profile of the classification through a back-matter resource', () => {
    const href: string = plan['import-profile'].href;
    const resource = plan['back-matter'].resources.find((r: { uuid: string }) => `#${r.uuid}` === href);
    expect(resource.rlinks[0].href).toBe('https://www.cyber.gov.au/ism/oscal/v2025.12.9/artifacts/ISM_PROTECTED-baseline_profile.json');
    expect(resource.props).toContainEqual({ name: 'version', value: '2025.12.9' });
  });

  it('names the sample catalogue by its own file, without an ASD address', async () => {
    const sample = await renderJson(oscalSspRenderer, { ...model, release: { ...model.release, sample: true } });
    const resource = sample['system-security-plan']['back-matter'].resources[0];
    expect(resource.rlinks).toEqual([{ href: 'SAMPLE_PROTECTED-baseline_profile.json', 'media-type': 'application/json' }]);
  });

  it('writes one implemented requirement per control, by its ISM OSCAL id, in catalogue order', () => {
    const ids = plan['control-implementation']['implemented-requirements'].map((r: { 'control-id': string }) => r['control-id']);
    expect(ids).toEqual(model.controls.map((c) => c.catalogue_id));
  });

  it('marks excluded controls not applicable with their justification', () => {
    const excluded = model.controls.find((c) => c.applicability === 'n')!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === excluded.catalogue_id,
    );
    expect(requirement.props).toContainEqual({ name: 'applicability', value: 'not-applicable', ns: 'https://assess.example.gov.au/ns/oscal' });
    expect(requirement['by-components'][0]['implementation-status']).toEqual({ state: 'not-applicable', remarks: excluded.applicability_comment });
  });

  it('states the implementation and its status on the system component', () => {
    const partial = model.controls.find((c) => c.applicability === 'y' && c.implementation_status === 'partially_implemented')!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === partial.catalogue_id,
    );
    const byComponent = requirement['by-components'][0];
    expect(byComponent['component-uuid']).toBe(plan['system-implementation'].components[0].uuid);
    expect(byComponent.description).toBe(partial.implementation_description);
    expect(byComponent['implementation-status']).toEqual({ state: 'partial' });
  });

  it('records provider guidance as a responsibility this system satisfies', () => {
    const guided = model.controls.find((c) => c.applicability === 'y' && c.provider_guidance.length && c.implementation_status !== 'ec')!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === guided.catalogue_id,
    );
    expect(requirement['by-components'][0].satisfied[0].description).toBe(guided.provider_guidance[0]!.guidance);
  });

  it('records provider guidance as inherited on a control effective through the provider', () => {
    const inherited = model.controls.find((c) => c.applicability === 'y' && c.provider_guidance.length && c.implementation_status === 'ec')!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === inherited.catalogue_id,
    );
    expect(requirement['by-components'][0].inherited[0].description).toBe(inherited.provider_guidance[0]!.guidance);
  });

  it('leverages each selected provider release: the provider a party, its authorization dated by its assessment, its service a component', () => {
    const [release] = model.provider_releases;
    const [authorization] = plan['system-implementation']['leveraged-authorizations'];
    expect(authorization).toMatchObject({ title: 'Example Cloud: IRAP assessment 2026 2026.1', 'date-authorized': release!.assessed_on });
    expect(plan.metadata.parties.find((p: { uuid: string }) => p.uuid === authorization['party-uuid'])).toMatchObject({
      type: 'organization',
      name: 'Example Cloud',
    });
    const component = plan['system-implementation'].components.find((c: { type: string }) => c.type === 'service');
    expect(component.props).toContainEqual({ name: 'leveraged-authorization-uuid', value: authorization.uuid });
  });

  it('dates a release that records no assessment by its publication, and says so', async () => {
    const [release] = model.provider_releases;
    const undated = await renderJson(oscalSspRenderer, { ...model, provider_releases: [{ ...release!, assessed_on: null }] });
    expect(undated['system-security-plan']['system-implementation']['leveraged-authorizations'][0]).toMatchObject({
      'date-authorized': release!.published_on,
      remarks: 'The release records no assessment date; the date is the day it was published.',
    });
  });

  it("marks a control the provider carries as inherited from the provider's component, which provides it", () => {
    const carried = model.controls.find((c) => c.applicability === 'y' && c.provider_guidance.some((g) => g.responsibility === 'provider'))!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === carried.catalogue_id,
    );
    expect(requirement.props).toContainEqual({ name: 'control-origination', value: 'inherited', ns: 'https://assess.example.gov.au/ns/oscal' });
    const [own, provider] = requirement['by-components'];
    expect(provider['component-uuid']).toBe(plan['system-implementation'].components.find((c: { type: string }) => c.type === 'service').uuid);
    expect(own.inherited[0]['provided-uuid']).toBe(provider.export.provided[0].uuid);
  });

  it('marks a common control as inherited', async () => {
    const common = model.controls.find((c) => c.applicability === 'y' && c.provider_guidance.length === 0 && c.implementation_status === 'implemented')!;
    const document = await renderJson(oscalSspRenderer, {
      ...model,
      controls: model.controls.map((c) => (c.id === common.id ? { ...c, assessment: { ...c.assessment, outcome: 'common_control' } } : c)),
    });
    const requirement = document['system-security-plan']['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === common.catalogue_id,
    );
    expect(requirement.props).toContainEqual({ name: 'control-origination', value: 'inherited', ns: 'https://assess.example.gov.au/ns/oscal' });
    expect(requirement['by-components'][0].inherited).toEqual([
      {
        uuid: expect.any(String),
        description: `${common.label} is a common control: the assessment found it implemented for this system by a common control provider.`,
      },
    ]);
  });

  it('identifies the system by its id in the product namespace, as FedRAMP identifies systems in its own', () => {
    expect(plan['system-characteristics']['system-ids']).toEqual([{ 'identifier-type': 'https://assess.example.gov.au/ns/oscal', id: model.system.id }]);
  });

  it('carries the protective marking and the classification', () => {
    expect(plan.metadata.props).toContainEqual({ name: 'marking', value: 'PROTECTED' });
    expect(plan['system-characteristics']['security-sensitivity-level']).toBe('PROTECTED');
    expect(plan.metadata['oscal-version']).toBe('1.1.3');
  });

  it('embeds the network diagram the authorization boundary shows', () => {
    const diagram = plan['system-characteristics']['authorization-boundary'].diagrams[0];
    const resource = plan['back-matter'].resources.find((r: { uuid: string }) => `#${r.uuid}` === diagram.links[0].href);
    expect(Buffer.from(resource.base64.value, 'base64')).toEqual(Buffer.from(model.images.diagram!.bytes));
  });

  it('validates without a network diagram', async () => {
    const bare = await renderJson(oscalSspRenderer, documentModel({ classification: 'TS', images: false, limit: 40 }));
    expect(bare['system-security-plan']['system-characteristics']['authorization-boundary'].diagrams).toBeUndefined();
    expect(oscalValidator('oscal_ssp_schema.json')(bare)).toBe(true);
  });

  it('names the approver of final output as the content approver', async () => {
    const final = await renderJson(oscalSspRenderer, documentModel({ classification: 'TS', output: 'final', limit: 40 }));
    const { metadata } = final['system-security-plan'];
    const approver = metadata['responsible-parties'].find((p: { 'role-id': string }) => p['role-id'] === 'content-approver');
    expect(metadata.parties.find((p: { uuid: string }) => p.uuid === approver['party-uuids'][0]).name).toBe('Alex Assessor');
    expect(metadata.props).toContainEqual({ name: 'document-output', value: 'final', ns: 'https://assess.example.gov.au/ns/oscal' });
  });

  it('carries the earlier outputs of the plan as revisions, this generation last', async () => {
    const earlier = { ...model.versions[0]!, key: 'oscal-ssp' as const };
    const revisions = (await renderJson(oscalSspRenderer, { ...model, versions: [earlier] }))['system-security-plan'].metadata.revisions;
    expect(revisions.map((r: { version: string }) => r.version)).toEqual([earlier.generation_id, model.document.generation_id]);
    expect(revisions[0].remarks).toBe('Approved by Jordan Owner on 2026-09-15.');
  });

  it("names the system's contacts as parties of a system-contact role, with their email, telephone and recorded role", () => {
    const casey = plan.metadata.parties.find((p: { name: string }) => p.name === 'Casey Owner');
    expect(casey['email-addresses']).toEqual(['casey.owner@example.gov.au']);
    expect(casey['telephone-numbers']).toEqual([{ number: '02 6000 0000' }]);
    expect(casey.props.map((p: { name: string; value: string }) => [p.name, p.value])).toEqual([['contact-role', 'System owner']]);
    const role = plan.metadata['responsible-parties'].find((r: { 'role-id': string }) => r['role-id'] === 'system-contact');
    expect(role['party-uuids']).toContain(casey.uuid);
  });

  it("gives each requirement the control's ISM revision and last update", () => {
    const control = model.controls.find((c) => c.revision !== null)!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === control.catalogue_id,
    );
    const props = Object.fromEntries(requirement.props.map((p: { name: string; value: string }) => [p.name, p.value]));
    expect([props['ism-revision'], props['ism-updated']]).toEqual([String(control.revision), control.updated]);
  });

  it('states the recommendation that excluded a control no comment justifies', () => {
    const control = model.controls.find((c) => c.applicability === 'n' && !c.applicability_comment)!;
    const requirement = plan['control-implementation']['implemented-requirements'].find(
      (r: { 'control-id': string }) => r['control-id'] === control.catalogue_id,
    );
    expect(requirement['by-components'][0]['implementation-status'].remarks).toBe('Recommended exclusion: The scope has no wireless networks.');
  });

  it('names the related plans the project records as back-matter resources of their kind', () => {
    const resource = plan['back-matter'].resources.find((r: { title: string }) => r.title === 'Incident response plan');
    expect(resource.props).toEqual([{ name: 'type', value: 'procedure' }]);
  });

  it('gives the same document for the same generation', async () => {
    expect(await renderJson(oscalSspRenderer, model)).toEqual(ssp);
  });
});
