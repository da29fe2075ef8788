import { providerEffects, type ProviderEffect } from '../domain/provider-effects.js';
import { selectedAssertions } from '../store/assertions.js';
import { keys } from '../store/keys.js';
import { getOne } from '../store/read.js';
import { asScope } from '../store/scopes.js';

/**
 * What the releases the project's scope selects now do to its controls, by catalogue id. Selected
 * releases are published, so their assertions no longer change: a project's effects move only
 * when its selections do, and population and recalculation are the only writers.
 */
export async function providerEffectsOf(projectId: string): Promise<Map<string, ProviderEffect>> {
  const selections = asScope(await getOne(keys.projectScope(projectId)))?.provider_selections ?? [];
  return selections.length ? providerEffects(await selectedAssertions(selections)) : new Map();
}
