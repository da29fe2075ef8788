import type * as z from 'zod';
import { canViewRestricted, type StoredArtefact } from '../domain/provider-artefacts.js';
import type { Permission } from '../domain/permissions.js';
import { notFound } from '../errors.js';
import { keys } from '../store/keys.js';
import { toArtefact } from '../store/provider-artefacts.js';
import { Ulid } from './common.js';
import { etagFor, requireVersion } from './etag.js';
import type { OperationContext } from './operation.js';
import { PROVIDER_PATH, ProviderParams, providerOf } from './provider-access.js';

export const ARTEFACTS_PATH = `${PROVIDER_PATH}/artefacts`;
export const ARTEFACT_PATH = `${ARTEFACTS_PATH}/{artefact}`;
export const ArtefactParams = ProviderParams.extend({ artefact: Ulid });
export type ArtefactParams = z.output<typeof ArtefactParams>;

export const HIERARCHY = { administration: [['manage-org-hierarchy' as const]] };

const KIND = 'provider-artefact';
export const artefactEtag = (a: StoredArtefact) => etagFor(KIND, a.id, a.version);
export const requireArtefactEtag = (ctx: OperationContext, a: StoredArtefact) => requireVersion(ctx.ifMatch, KIND, a.id, a.version);

export const artefactPrefetch = (p: ArtefactParams) => [keys.externalProvider(p.provider), keys.providerArtefact(p.provider, p.artefact)];

/**
 * The artefact, when this caller may see it: a restricted one needs view-restricted-provider-artefacts
 * and is otherwise the same 404 as an unknown one (seed: no hint that it exists).
 */
export function artefactOf(ctx: OperationContext, p: ArtefactParams): StoredArtefact {
  providerOf(ctx, p.provider);
  const item = ctx.prefetched(keys.providerArtefact(p.provider, p.artefact));
  if (!item) throw notFound();
  const artefact = toArtefact(item);
  if (artefact.restricted && !canViewRestricted(ctx.caller.permissions)) throw notFound();
  return artefact;
}

/** What the scan worker checks again before it releases an artefact's file (seed, Boundary rule 5). */
export const uploaderNeeds = (restricted: boolean): Permission[] =>
  restricted ? ['manage-org-hierarchy', 'upload-restricted-provider-artefacts'] : ['manage-org-hierarchy'];
