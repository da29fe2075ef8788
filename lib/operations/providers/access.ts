import * as z from 'zod';
import { releaseView, type StoredProvider, type StoredRelease } from '../../domain/providers.js';
import { conflict, notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { type ProviderItem, toProvider, toRelease } from '../../store/providers.js';
import { Ulid } from '../kernel/common.js';
import { etagFor } from '../kernel/etag.js';
import type { OperationContext } from '../kernel/operation.js';
import { once } from '../../domain/validation.js';

export const PROVIDERS_PATH = '/external-providers';
export const PROVIDER_PATH = `${PROVIDERS_PATH}/{provider}`;
export const RELEASES_PATH = `${PROVIDER_PATH}/assurance-releases`;
export const RELEASE_PATH = `${RELEASES_PATH}/{package}`;

export const ProviderParams = once(() => z.strictObject({ provider: Ulid }));
export const ReleaseParams = once(() => ProviderParams().extend({ package: Ulid }));
export type ReleaseParams = z.output<ReturnType<typeof ReleaseParams>>;

const PROVIDER_KIND = 'external-provider';
const RELEASE_KIND = 'assurance-release';

/** The provider's ETag names its release count too: the representation shows it, and deletion depends on it. */
const providerView = (p: StoredProvider) => `releases:${p.release_count}`;
export const providerEtag = (p: StoredProvider) => etagFor(PROVIDER_KIND, p.id, p.version, providerView(p));

/** A release's ETag names its counts beside its revision: an import that moves them makes an older ETag stale. */
const releaseRepresentation = (r: StoredRelease) => JSON.stringify(releaseView(r).counts);
export const releaseEtag = (r: StoredRelease) => etagFor(RELEASE_KIND, r.id, r.revision, releaseRepresentation(r));

export const providerPrefetch = (p: { provider: string }) => [keys.externalProvider(p.provider)];
export const releasePrefetch = (p: ReleaseParams) => [keys.externalProvider(p.provider), keys.assuranceRelease(p.provider, p.package)];

export function providerOf(ctx: OperationContext, providerId: string): ProviderItem {
  const item = ctx.prefetched(keys.externalProvider(providerId));
  if (!item) throw notFound();
  return toProvider(item);
}

export function releaseOf(ctx: OperationContext, p: ReleaseParams): StoredRelease {
  providerOf(ctx, p.provider);
  const item = ctx.prefetched(keys.assuranceRelease(p.provider, p.package));
  if (!item) throw notFound();
  return toRelease(item);
}

/** Seed: published releases are immutable. Checked before If-Match, since no ETag could make the write succeed. */
export const releasePublished = () => conflict('release_published', 'The assurance release is published and can no longer be changed or deleted.');

export function requireDraft(r: StoredRelease): void {
  if (r.status === 'published') throw releasePublished();
}
