import type { DocumentControl, DocumentModel, DocumentProviderRelease } from '../../domain/document-model.js';
import { streamed } from '../json-stream.js';
import {
  IMPLEMENTATION_STATES,
  inheritedControl,
  line,
  metadataOf,
  organisationParty,
  oscalRenderer,
  type Own,
  type Party,
  profileResource,
  type Prop,
  prose,
  type Resource,
  some,
  systemComponent,
  systemIdOf,
  UNKNOWN_STATE,
  type Uuid,
} from './common.js';

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

/** A selected provider release as the system leverages it: the provider as a party, its authorization and its service as a component. */
function leveraged(r: DocumentProviderRelease, uuid: Uuid, own: Own) {
  const party: Party = { uuid: uuid('party', 'provider', r.provider_id), type: 'organization', name: line(r.provider_name) ?? 'Unnamed provider' };
  const title = line(`${r.provider_name}: ${r.release_name}${r.release_version ? ` ${r.release_version}` : ''}`) ?? 'Unnamed provider release';
  const dated = r.assessed_on ?? r.published_on;
  const authorization = dated
    ? {
        uuid: uuid('leveraged-authorization', r.release_id),
        title,
        'party-uuid': party.uuid,
        'date-authorized': dated,
        props: [own('provider-release-id', r.release_id)],
        remarks: r.assessed_on ? undefined : 'The release records no assessment date; the date is the day it was published.',
      }
    : null;
  const component = {
    uuid: uuid('component', 'provider-release', r.release_id),
    type: 'service',
    title,
    description: `The service of ${r.provider_name} as its assurance release ${r.release_name} describes it; the project selected this release, so its confirmed assertions apply to the system.`,
    props: [
      ...(authorization ? [{ name: 'leveraged-authorization-uuid', value: authorization.uuid }] : []),
      { name: 'implementation-point', value: 'external' },
      own('provider-id', r.provider_id),
      own('provider-release-id', r.release_id),
    ],
    status: { state: 'operational' },
  };
  return { party, authorization, component };
}

type Leveraged = ReturnType<typeof leveraged>;

/**
 * Provider guidance on a control, by the responsibility the provider's assertion states: what the
 * provider carries alone (and every entry of a control effective through the provider, `ec`) is
 * inherited from the provider's component, which provides it; a shared or consumer
 * responsibility is one this system satisfies, which its implementation description answers.
 */
function guidance(c: DocumentControl, uuid: Uuid, own: Own, providers: Map<string, Leveraged>) {
  const entries = c.provider_guidance.map((g, i) => {
    const inherited = c.implementation_status === 'ec' || g.responsibility === 'provider';
    return { g, i, inherited, provider: providers.get(g.release_id) };
  });
  const props = (g: DocumentControl['provider_guidance'][number]) => [
    own('provider-id', g.provider_id),
    own('provider-release-id', g.release_id),
    own('responsibility', g.responsibility),
  ];
  const provided = (i: number) => uuid('provided', c.id, String(i));
  const inherited = [
    ...entries
      .filter((e) => e.inherited)
      .map((e) => ({
        uuid: uuid('provider-guidance', c.id, String(e.i)),
        'provided-uuid': e.provider ? provided(e.i) : undefined,
        description: e.g.guidance,
        props: props(e.g),
      })),
    ...(c.assessment.outcome === 'common_control'
      ? [
          {
            uuid: uuid('common-control', c.id),
            description: `${c.label} is a common control: the assessment found it implemented for this system by a common control provider.`,
          },
        ]
      : []),
  ];
  const satisfied = entries
    .filter((e) => !e.inherited)
    .map((e) => ({ uuid: uuid('provider-guidance', c.id, String(e.i)), description: e.g.guidance, props: props(e.g) }));
  const byProviders = entries.flatMap((e) =>
    e.inherited && e.provider
      ? [
          {
            'component-uuid': e.provider.component.uuid,
            uuid: uuid('by-component', c.id, 'provider', String(e.i)),
            description: e.g.guidance,
            export: { provided: [{ uuid: provided(e.i), description: e.g.guidance }] },
          },
        ]
      : [],
  );
  return { inherited: some(inherited), satisfied: some(satisfied), byProviders };
}

function requirement(c: DocumentControl, uuid: Uuid, own: Own, thisSystem: string, providers: Map<string, Leveraged>) {
  const applicable = c.applicability === 'y';
  const props: Prop[] = [
    own('label', c.label),
    own('applicability', applicable ? 'applicable' : 'not-applicable'),
    own('applicability-origin', c.applicability_origin),
  ];
  if (c.implementation_status) props.push(own('implementation-status', c.implementation_status));
  if (applicable && inheritedControl(c)) props.push(own('control-origination', 'inherited'));
  const state = applicable ? c.implementation_status && IMPLEMENTATION_STATES[c.implementation_status] : 'not-applicable';
  const description = applicable
    ? (prose(c.implementation_description) ?? prose(c.implementation_summary) ?? 'No implementation has been recorded.')
    : `${c.label} does not apply: ${prose(c.applicability_comment) ?? 'excluded without a recorded justification.'}`;
  const { byProviders, ...responsibilities } = applicable ? guidance(c, uuid, own, providers) : { byProviders: [] };
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
        ...responsibilities,
      },
      ...byProviders,
    ],
  };
}

/**
 * The project as an OSCAL 1.1.3 System Security Plan. Every control of the project is an
 * implemented requirement; those the project excludes carry implementation-status
 * `not-applicable` with their justification, so the plan accounts for the whole baseline.
 */
export const oscalSspRenderer = oscalRenderer((model, uuid, own) => {
  const organisation = organisationParty(uuid, model);
  const profile = profileResource(model, uuid);
  const diagram = diagramResource(model, uuid);
  const component = systemComponent(model, uuid);
  const providers = new Map(model.provider_releases.map((r) => [r.release_id, leveraged(r, uuid, own)]));
  const authorizations = [...providers.values()].flatMap((p) => (p.authorization ? [p.authorization] : []));
  return {
    'system-security-plan': {
      uuid: uuid('system-security-plan'),
      metadata: metadataOf(model, uuid, {
        roles: [{ id: 'system-owner', title: 'System owner' }],
        parties: [...providers.values()].map((p) => p.party),
        responsible: [{ 'role-id': 'system-owner', 'party-uuids': [organisation.uuid] }],
      }),
      'import-profile': { href: `#${profile.uuid}` },
      'system-characteristics': {
        'system-ids': [systemIdOf(model)],
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
        'leveraged-authorizations': some(authorizations),
        users: [
          {
            uuid: uuid('user', 'organisation'),
            title: `Personnel of ${model.organisation.name}`,
            description: 'The people of the organisation who operate and use the system; the project records no finer user roles.',
          },
        ],
        components: [
          { ...component, 'responsible-roles': [{ 'role-id': 'system-owner', 'party-uuids': [organisation.uuid] }] },
          ...[...providers.values()].map((p) => p.component),
        ],
      },
      'control-implementation': {
        description: `How ${model.system.name} implements the ${model.marking.name} baseline of ${model.release.title} ${model.release.version}, as recorded in the project ${model.project.name}.`,
        'implemented-requirements': streamed(model.controls, (c) => requirement(c, uuid, own, component.uuid, providers)),
      },
      'back-matter': { resources: some([profile, ...(diagram ? [diagram] : [])]) },
    },
  };
});
