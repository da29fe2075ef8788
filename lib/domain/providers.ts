import * as z from 'zod';
import type { FieldError } from '../errors.js';
import { Ulid } from './ids.js';
import { changesSomething } from './patch.js';
import { filledLine, multiLine, once, singleLine } from './validation.js';

/**
 * Shared external providers and their assurance releases (seed, External provider operations):
 * installation-owned, edited with Administration credentials, selected by projects once published.
 */

/**
 * At most this many releases per provider: deleting a provider removes its releases in the
 * deletion's one transaction (100 items, with the provider and the audit record), so that no
 * project can select a release of a provider that is gone.
 */
export const RELEASE_LIMIT = 50;

const IsoDate = once(() => z.iso.date().meta({ description: 'YYYY-MM-DD' }));
const Name = once(() => filledLine(200));
const Description = once(() => multiLine().max(5000));
const Website = once(() =>
  singleLine()
    .max(2048)
    .refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), 'must be an http or https URL')
    .meta({ description: 'An http or https URL; stored only, never fetched.' }),
);

export const ExternalProvider = once(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      website: z.string().nullable(),
      release_count: z.number().int().min(0),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'ExternalProvider' }),
);
export type ExternalProvider = z.infer<ReturnType<typeof ExternalProvider>>;

export const CreateExternalProvider = once(() =>
  z
    .strictObject({ name: Name(), description: Description().nullable().optional(), website: Website().nullable().optional() })
    .meta({ id: 'CreateExternalProvider' }),
);

export const UpdateExternalProvider = once(() =>
  z
    .strictObject({ name: Name(), description: Description().nullable(), website: Website().nullable() })
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateExternalProvider', description: 'JSON merge patch: omitted properties are kept; null clears description or website.' }),
);
export type UpdateExternalProvider = z.output<ReturnType<typeof UpdateExternalProvider>>;

export interface StoredProvider extends ExternalProvider {
  version: number;
  created_by: string;
  /** How many saved project scopes select one of its releases: a provider they select cannot be deleted. */
  selections?: number;
}

export const providerView = ({ version: _v, created_by: _c, selections: _s, ...provider }: StoredProvider): ExternalProvider => provider;

export const RELEASE_STATUSES = ['draft', 'published'] as const;

/** What the release's artefacts and imports have produced (moved by those writes, never by a client). */
export const ReleaseCounts = once(() =>
  z.object({
    artefacts: z.number().int().min(0),
    assertions: z.number().int().min(0),
    confirmed_assertions: z.number().int().min(0),
  }),
);
export type ReleaseCounts = z.infer<ReturnType<typeof ReleaseCounts>>;
export const COUNT_NAMES = ['artefacts', 'assertions', 'confirmed_assertions'] as const;

export const AssuranceRelease = once(() =>
  z
    .object({
      id: z.string(),
      provider_id: z.string(),
      name: z.string(),
      version: z.string(),
      ism_version_id: z.string(),
      ism_version: z.string(),
      description: z.string().nullable(),
      assessed_on: z.string().nullable(),
      valid_until: z.string().nullable(),
      status: z.enum(RELEASE_STATUSES),
      published_at: z.string().nullable(),
      published_by: z.string().nullable(),
      counts: ReleaseCounts(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'AssuranceRelease' }),
);
export type AssuranceRelease = z.infer<ReturnType<typeof AssuranceRelease>>;

const VersionLabel = once(() => filledLine(50).meta({ description: 'The provider\u2019s label for this release, such as 2026.1.' }));
const releaseFields = once(() => ({
  name: Name(),
  version: VersionLabel(),
  ism_version_id: Ulid.meta({ description: 'The imported ISM release (setup options list them) the assertions were assessed against.' }),
  description: Description().nullable(),
  assessed_on: IsoDate().nullable(),
  valid_until: IsoDate().nullable().meta({ description: 'Not before assessed_on.' }),
}));

export const CreateAssuranceRelease = once(() =>
  z
    .strictObject({
      name: releaseFields().name,
      version: releaseFields().version,
      ism_version_id: releaseFields().ism_version_id,
      description: releaseFields().description.optional(),
      assessed_on: releaseFields().assessed_on.optional(),
      valid_until: releaseFields().valid_until.optional(),
    })
    .meta({ id: 'CreateAssuranceRelease' }),
);
export type CreateAssuranceRelease = z.output<ReturnType<typeof CreateAssuranceRelease>>;

export const UpdateAssuranceRelease = once(() =>
  z
    .strictObject(releaseFields())
    .partial()
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateAssuranceRelease', description: 'JSON merge patch of a draft release: omitted properties are kept; null clears a nullable one.' }),
);
export type UpdateAssuranceRelease = z.output<ReturnType<typeof UpdateAssuranceRelease>>;

export const PublishAssuranceRelease = once(() => z.strictObject({}).meta({ id: 'PublishAssuranceRelease', description: 'An empty JSON object.' }));

export interface StoredRelease extends Omit<AssuranceRelease, 'counts'>, ReleaseCounts {
  /** Concurrency revision (`version` is the provider's label); counts move without it, the ETag names both. */
  revision: number;
  created_by: string;
}

/** A new draft release as the create operation stores it; `ism_version` is the label of `ism_version_id`, read by the caller. */
export function newRelease(input: CreateAssuranceRelease, r: { id: string; providerId: string; ismVersion: string; by: string; now: Date }): StoredRelease {
  const at = r.now.toISOString();
  return {
    id: r.id,
    provider_id: r.providerId,
    name: input.name,
    version: input.version,
    ism_version_id: input.ism_version_id,
    ism_version: r.ismVersion,
    description: input.description ?? null,
    assessed_on: input.assessed_on ?? null,
    valid_until: input.valid_until ?? null,
    status: 'draft',
    published_at: null,
    published_by: null,
    artefacts: 0,
    assertions: 0,
    confirmed_assertions: 0,
    created_at: at,
    updated_at: at,
    revision: 1,
    created_by: r.by,
  };
}

/** The release as publication leaves it: published by `by` at `now`, one revision on. */
export function publishedRelease(current: StoredRelease, by: string, now: Date): StoredRelease {
  const at = now.toISOString();
  return { ...current, status: 'published', published_at: at, published_by: by, updated_at: at, revision: current.revision + 1 };
}

export const releaseView = (r: StoredRelease): AssuranceRelease => ({
  id: r.id,
  provider_id: r.provider_id,
  name: r.name,
  version: r.version,
  ism_version_id: r.ism_version_id,
  ism_version: r.ism_version,
  description: r.description,
  assessed_on: r.assessed_on,
  valid_until: r.valid_until,
  status: r.status,
  published_at: r.published_at,
  published_by: r.published_by,
  counts: { artefacts: r.artefacts, assertions: r.assertions, confirmed_assertions: r.confirmed_assertions },
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Date rules, judged on the release as it would stand: a patch of one date is checked against the other as stored. */
export function releaseDateErrors(release: Pick<StoredRelease, 'assessed_on' | 'valid_until'>, patched: ReadonlySet<string>): FieldError[] {
  if (!release.assessed_on || !release.valid_until || release.valid_until >= release.assessed_on) return [];
  const pointer = patched.has('valid_until') || !patched.has('assessed_on') ? '/valid_until' : '/assessed_on';
  return [{ pointer, code: 'valid_until_before_assessed_on', detail: 'valid_until must not fall before assessed_on' }];
}

/**
 * What publication needs beyond a draft: the assessment date, which every consumer of the
 * package reads first. The assertions themselves are reviewed through their own operations.
 */
export function publicationErrors(release: Pick<StoredRelease, 'assessed_on'>): FieldError[] {
  return release.assessed_on ? [] : [{ pointer: '/assessed_on', code: 'release_incomplete', detail: 'a release is published with its assessment date' }];
}

/**
 * The ISM release cannot change under assertions: whether each is exact was judged against it.
 */
export const ismVersionLocked = (release: Pick<StoredRelease, 'assertions'>) => release.assertions > 0;

/** A selection of a project's scope, as the provider counters see it: how each provider's count moves from before to after. */
export function selectionDeltas(before: readonly { provider_id: string; release_id: string }[], after: readonly { provider_id: string; release_id: string }[]) {
  const distinct = (list: readonly { provider_id: string; release_id: string }[]) => [
    ...new Map(list.map((s) => [`${s.provider_id}#${s.release_id}`, s.provider_id])).values(),
  ];
  const deltas = new Map<string, number>();
  for (const p of distinct(before)) deltas.set(p, (deltas.get(p) ?? 0) - 1);
  for (const p of distinct(after)) deltas.set(p, (deltas.get(p) ?? 0) + 1);
  return new Map([...deltas].filter(([, d]) => d !== 0));
}

/** The filter value of an ISM control in options: the catalogue's own identifier, matched without regard to case (ISM-1691 finds ism-1691). */
export const ControlIdentifier = once(() =>
  singleLine()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be an ISM control identifier such as ism-1691')
    .transform((v) => v.toLowerCase()),
);

export const ProviderOption = once(() =>
  z
    .object({
      provider_id: z.string(),
      provider_name: z.string(),
      release_id: z.string(),
      name: z.string(),
      version: z.string(),
      ism_version_id: z.string(),
      ism_version: z.string(),
      assessed_on: z.string().nullable(),
      valid_until: z.string().nullable(),
      published_at: z.string(),
    })
    .meta({ id: 'ExternalProviderOption', description: 'A published assurance release a project scope may select (provider_id and release_id).' }),
);
export type ProviderOption = z.infer<ReturnType<typeof ProviderOption>>;

export const optionOf = (provider: Pick<StoredProvider, 'id' | 'name'>, r: StoredRelease): ProviderOption => ({
  provider_id: provider.id,
  provider_name: provider.name,
  release_id: r.id,
  name: r.name,
  version: r.version,
  ism_version_id: r.ism_version_id,
  ism_version: r.ism_version,
  assessed_on: r.assessed_on,
  valid_until: r.valid_until,
  published_at: r.published_at!,
});
