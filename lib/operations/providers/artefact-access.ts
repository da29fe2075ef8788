import type * as z from 'zod';
import { canViewRestricted, type StoredArtefact } from '../../domain/provider-artefacts.js';
import type { ImportRun } from '../../domain/imports/run.js';
import type { Permission } from '../../domain/permissions.js';
import { notFound } from '../../errors.js';
import { toImportRun } from '../../store/imports.js';
import { keys } from '../../store/keys.js';
import { toArtefact } from '../../store/provider-artefacts.js';
import { Ulid } from '../kernel/common.js';
import { etagFor } from '../kernel/etag.js';
import type { OperationContext } from '../kernel/operation.js';
import { PROVIDER_PATH, ProviderParams, providerOf } from './access.js';
import { once } from '../../domain/validation.js';

export const ARTEFACTS_PATH = `${PROVIDER_PATH}/artefacts`;
export const ARTEFACT_PATH = `${ARTEFACTS_PATH}/{artefact}`;
export const ArtefactParams = once(() => ProviderParams().extend({ artefact: Ulid }));
export type ArtefactParams = z.output<ReturnType<typeof ArtefactParams>>;

export const HIERARCHY = { administration: [['manage-org-hierarchy' as const]] };

const KIND = 'provider-artefact';
/**
 * Artefact detail shows the current import run, which its job writes without touching the
 * artefact: the run and its revision (moved by every write detail shows) are the ETag's view
 * part, so the ETag moves with the run and an If-Match from before a run write is 412.
 */
const runView = (run: ImportRun | undefined) => (run ? `import ${run.run_id} ${run.revision}` : 'no import');
export const artefactEtag = (a: StoredArtefact, run: ImportRun | undefined) => etagFor(KIND, a.id, a.version, runView(run));

export const artefactPrefetch = (p: ArtefactParams) => [keys.externalProvider(p.provider), keys.providerArtefact(p.provider, p.artefact)];
/** For the operations that show the artefact's import run or take its ETag. */
export const artefactImportPrefetch = (p: ArtefactParams) => [...artefactPrefetch(p), keys.artefactImport(p.provider, p.artefact)];

export const importRunOf = (ctx: OperationContext, p: ArtefactParams) => toImportRun(ctx.prefetched(keys.artefactImport(p.provider, p.artefact)));

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
