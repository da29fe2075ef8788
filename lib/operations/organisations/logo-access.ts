import { notFound } from '../../errors.js';
import { asFileOwner } from '../../store/file-owners.js';
import { keys } from '../../store/keys.js';
import type { OperationContext } from '../kernel/operation.js';

/**
 * What the logo operations (organisations function) and the logo download (downloads function)
 * share. It declares no operation, so that neither function bundles the other's.
 */

export const LOGO_PATH = '/organisations/{organisation}/logo';
export const LOGO_FILE_PATH = `${LOGO_PATH}/file`;

export function currentLogo(ctx: OperationContext, organisation: string) {
  if (!ctx.prefetched(keys.organisation(organisation))) throw notFound();
  const item = asFileOwner(ctx.prefetched(keys.organisationLogo(organisation)));
  return { item, version: item?.version ?? 0 };
}

export const prefetch = ({ organisation }: { organisation: string }) => [keys.organisation(organisation), keys.organisationLogo(organisation)];
