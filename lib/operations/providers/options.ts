import * as z from 'zod';
import { once } from '../../domain/validation.js';
import { ControlIdentifier, optionOf, ProviderOption, type StoredRelease } from '../../domain/providers.js';
import { releasesAsserting } from '../../store/assertions.js';
import { keys } from '../../store/keys.js';
import { PUBLISHED_COUNTER, publishedCount, publishedReleasesPage, publishedSortKey, toProvider, toRelease } from '../../store/providers.js';
import { getMany, keyString } from '../../store/read.js';
import { PageQuery, Ulid } from '../kernel/common.js';
import type { Page } from '../kernel/operation.js';
import { operation } from './declare.js';
import { PROVIDERS_PATH } from './access.js';

const OptionsQuery = once(() =>
  PageQuery().extend({
    ism_version_id: Ulid.optional().meta({ description: 'Only releases assessed against this imported ISM release.' }),
    control_id: ControlIdentifier().optional().meta({
      description: 'Only releases with a confirmed assertion about this ISM control (the catalogue identifier, such as ism-1691; case does not matter).',
    }),
  }),
);

/**
 * The published releases asserting a control: its index items, then those releases, kept when
 * published (and of the ISM release asked for), in the order of the unfiltered list.
 */
async function assertingPage(controlId: string, ismVersionId: string | undefined, page: Page): Promise<{ releases: StoredRelease[]; total: number }> {
  const asserting = await releasesAsserting(controlId);
  const found = await getMany(asserting.map((a) => keys.assuranceRelease(a.provider_id, a.release_id)));
  const selectable = [...found.values()]
    .map(toRelease)
    .filter((r) => r.status === 'published' && (!ismVersionId || r.ism_version_id === ismVersionId))
    .sort((a, b) => publishedSortKey(a).localeCompare(publishedSortKey(b)));
  const start = (page.number - 1) * page.size;
  return { releases: selectable.slice(start, start + page.size), total: selectable.length };
}

export const listExternalProviderOptions = operation({
  id: 'listExternalProviderOptions',
  method: 'GET',
  path: `${PROVIDERS_PATH}/options`,
  summary: 'List the published assurance releases projects may select, by ISM release, then provider, then release.',
  description:
    'Filters combine. Without control_id, the list reads an index that follows publication within moments, while the total is exact at once; control_id reads strongly.',
  credential: ['administration'],
  permission: { administration: [['manage-org-hierarchy']] },
  success: 200,
  params: () => z.strictObject({}),
  query: OptionsQuery,
  response: () => z.array(ProviderOption()),
  paginated: true,
  sideEffects: [],
  prefetch: () => [keys.counter(PUBLISHED_COUNTER)],
  handle: async (ctx, { query }) => {
    const counter = ctx.prefetched(keys.counter(PUBLISHED_COUNTER));
    const { releases, total } = query.control_id
      ? await assertingPage(query.control_id, query.ism_version_id, ctx.page)
      : {
          releases: await publishedReleasesPage(query.ism_version_id, ctx.page),
          total: publishedCount(counter, query.ism_version_id),
        };
    const providers = await getMany(releases.map((r) => keys.externalProvider(r.provider_id)));
    const data = releases.flatMap((r) => {
      const provider = providers.get(keyString(keys.externalProvider(r.provider_id)));
      return provider ? [optionOf(toProvider(provider), r)] : [];
    });
    return { data, total };
  },
});
