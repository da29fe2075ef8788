import type { DocumentControl, DocumentModel } from '../../domain/document-model.js';
import { streamed, writeJson } from '../json-stream.js';
import type { Renderer } from '../renderer.js';
import {
  IMPLEMENTATION_STATES,
  line,
  metadataOf,
  organisationParty,
  own,
  profileResource,
  prose,
  type Prop,
  type Resource,
  some,
  systemComponent,
  UNKNOWN_STATE,
  type Uuid,
} from './common.js';
import { uuidsOf } from './ids.js';

function boundary(model: DocumentModel, uuid: Uuid, diagram: Resource | null) {
  const parts = [
    prose(model.scope.in_scope) && `In scope: ${prose(model.scope.in_scope)}`,
    prose(model.scope.out_of_scope) && `Out of scope: ${prose(model.scope.out_of_scope)}`,
  ].filter((p): p is string => Boolean(p));
  return {
    description: parts.length ? parts.join('\n\n') : `The project records no scope that bounds ${model.system.name}.`,
    diagrams: diagram
      ? [
          {
            uuid: uuid('diagram', 'network'),
            description: `The network diagram registered for the project ${model.project.name}.`,
            links: [{ href: `#${diagram.uuid}`, rel: 'diagram', 'media-type': model.images.diagram!.media_type }],
            caption: `Network diagram of ${model.system.name}`,
          },
        ]
      : undefined,
  };
}

function diagramResource(model: DocumentModel, uuid: Uuid): Resource | null {
  const image = model.images.diagram;
  if (!image) return null;
  return {
    uuid: uuid('resource', 'network-diagram'),
    title: `Network diagram of ${model.system.name}`,
    props: [{ name: 'type', value: 'image' }],
    base64: {
      filename: image.media_type === 'image/png' ? 'network-diagram.png' : 'network-diagram.jpg',
      'media-type': image.media_type,
      value: Buffer.from(image.bytes).toString('base64'),
    },
  };
}

/**
 * Provider guidance on a control: what an external provider's assurance says. A control effective
 * through the provider (`ec`) inherits it; otherwise the guidance is a responsibility the provider
 * leaves to this system, which its implementation description answers.
 */
function guidance(c: DocumentControl, uuid: Uuid) {
  const entries = c.provider_guidance.map((g, i) => ({
    uuid: uuid('provider-guidance', c.id, String(i)),
    description: g.guidance,
    props: [own('provider-id', g.provider_id), own('provider-release-id', g.release_id)],
  }));
  if (!entries.length) return {};
  return c.implementation_status === 'ec' ? { inherited: entries } : { satisfied: entries };
}

function requirement(c: DocumentControl, uuid: Uuid, thisSystem: string) {
  const applicable = c.applicability === 'y';
  const props: Prop[] = [
    own('label', c.label),
    own('applicability', applicable ? 'applicable' : 'not-applicable'),
    own('applicability-origin', c.applicability_origin),
  ];
  if (c.implementation_status) props.push(own('implementation-status', c.implementation_status));
  const state = applicable ? c.implementation_status && IMPLEMENTATION_STATES[c.implementation_status] : 'not-applicable';
  const description = applicable
    ? (prose(c.implementation_description) ?? prose(c.implementation_summary) ?? 'No implementation has been recorded.')
    : `${c.label} does not apply: ${prose(c.applicability_comment) ?? 'excluded without a recorded justification.'}`;
  return {
    uuid: uuid('implemented-requirement', c.id),
    'control-id': c.catalogue_id,
    props,
    'by-components': [
      {
        'component-uuid': thisSystem,
        uuid: uuid('by-component', c.id),
        description,
        'implementation-status': state ? { state, remarks: applicable ? undefined : (prose(c.applicability_comment) ?? undefined) } : undefined,
        ...(applicable ? guidance(c, uuid) : {}),
      },
    ],
  };
}

/**
 * The project as an OSCAL 1.1.3 System Security Plan. Every control of the project is an
 * implemented requirement; those the project excludes carry implementation-status
 * `not-applicable` with their justification, so the plan accounts for the whole baseline.
 */
export const oscalSspRenderer: Renderer = {
  format: 'json',
  mediaType: 'application/json',
  extension: 'json',
  async render(model, out) {
    const uuid = uuidsOf(model.document.generation_id);
    const organisation = organisationParty(uuid, model);
    const profile = profileResource(model, uuid);
    const diagram = diagramResource(model, uuid);
    const component = systemComponent(model, uuid);
    await writeJson(out, {
      'system-security-plan': {
        uuid: uuid('system-security-plan'),
        metadata: metadataOf(model, uuid, {
          roles: [{ id: 'system-owner', title: 'System owner' }],
          parties: [],
          responsible: [{ 'role-id': 'system-owner', 'party-uuids': [organisation.uuid] }],
        }),
        'import-profile': { href: `#${profile.uuid}` },
        'system-characteristics': {
          'system-ids': [{ 'identifier-type': 'urn:assessment-operations-api:system', id: model.system.id }],
          'system-name': line(model.system.name) ?? 'Unnamed system',
          'system-name-short': line(model.system.short_code) ?? undefined,
          description:
            prose(model.system.description) ?? prose(model.project.description) ?? `${model.system.name}, assessed in the project ${model.project.name}.`,
          props: [own('essential-eight-target', model.project.essential_eight_target)],
          'security-sensitivity-level': model.marking.name,
          'system-information': {
            'information-types': [
              {
                uuid: uuid('information-type', model.project.classification),
                title: `Information classified up to ${model.marking.name}`,
                description: `Information that ${model.system.name} stores, processes or communicates, at a classification of up to ${model.marking.name}.`,
              },
            ],
          },
          status: UNKNOWN_STATE,
          'authorization-boundary': boundary(model, uuid, diagram),
        },
        'system-implementation': {
          users: [
            {
              uuid: uuid('user', 'organisation'),
              title: `Personnel of ${model.organisation.name}`,
              description: 'The people of the organisation who operate and use the system; the project records no finer user roles.',
            },
          ],
          components: [{ ...component, 'responsible-roles': [{ 'role-id': 'system-owner', 'party-uuids': [organisation.uuid] }] }],
        },
        'control-implementation': {
          description: `How ${model.system.name} implements the ${model.marking.name} baseline of ${model.release.title} ${model.release.version}, as recorded in the project ${model.project.name}.`,
          'implemented-requirements': streamed(model.controls, (c) => requirement(c, uuid, component.uuid)),
        },
        'back-matter': { resources: some([profile, ...(diagram ? [diagram] : [])]) },
      },
    });
  },
};
