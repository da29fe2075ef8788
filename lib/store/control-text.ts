import type { JoinedControl, StoredControl } from '../domain/controls.js';
import type { CatalogueEntry } from '../domain/oscal.js';
import { type AssertionText, type GuidanceReference, guidanceOf } from '../domain/provider-effects.js';
import { once } from '../domain/validation.js';
import { assertionSchema, confirmedAssertionItems } from './assertions.js';
import { releaseCatalogue } from './catalogue-entries.js';
import { parseStored } from './entity.js';
import { keys } from './keys.js';
import { getMany, type Item, keyString } from './read.js';

/**
 * Reads join a control with what it does not store (JoinedControl): its catalogue entry's
 * statement and classifications, from the project's release, and its providers' words, from the
 * assertions its guidance references name. Neither changes once a control can point at it: a
 * complete catalogue release never changes, and only published assurance releases can be
 * selected, whose assertions can no longer be confirmed, rejected or deleted (409
 * release_published), nor the release deleted while a project selects it. So a warm function
 * keeps both: a control's read is one round trip, the authentication BatchGetItem, once its
 * release's entries and its assertions have been read (else one more, in parallel).
 */

const textSchema = once(() =>
  assertionSchema().pick({
    id: true,
    responsibility: true,
    implementation_status: true,
    consumer_guidance: true,
    implementation_statement: true,
  }),
);
const toText = (item: Item): AssertionText => parseStored(textSchema(), item);

/** At most `max` values, the oldest dropped first: assertion texts run to 20,000 characters each. */
class Kept<V> {
  private readonly values = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    return this.values.get(key);
  }
  set(key: string, value: V): void {
    if (this.values.size >= this.max) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, value);
  }
  delete(key: string): void {
    this.values.delete(key);
  }
}

// Bounded for the worst case, texts of 20,000 characters: about 40 MB of single assertions, and
// the few releases a document generation reads at a time (a release asserts about 1,100 controls).
const assertionTexts = new Kept<AssertionText>(1_000);
const releaseTexts = new Kept<Promise<ReadonlyMap<string, AssertionText>>>(4);

const assertionKey = (r: GuidanceReference) => keyString(keys.assertion(r.provider_id, r.assertion_id));

/** The texts of every assertion of an assurance release, by assertion id: one Query, kept. */
function textsOfRelease(providerId: string, releaseId: string): Promise<ReadonlyMap<string, AssertionText>> {
  const key = `${providerId}#${releaseId}`;
  let cached = releaseTexts.get(key);
  if (!cached) {
    cached = confirmedAssertionItems(providerId, releaseId, Object.keys(textSchema().shape)).then((items) => new Map(items.map(toText).map((t) => [t.id, t])));
    cached.catch(() => releaseTexts.delete(key));
    releaseTexts.set(key, cached);
  }
  return cached;
}

function joined(control: StoredControl, entry: CatalogueEntry | undefined, textOf: (r: GuidanceReference) => AssertionText | undefined): JoinedControl {
  // Controls are made from their project's release, which never changes: an entry missing is a broken store.
  if (!entry) throw new Error(`control ${control.id} names ${control.catalogue_id}, which its project's catalogue release lacks`);
  return { ...control, statement: entry.statement, classifications: entry.classifications, provider_guidance: guidanceOf(control.provider_guidance, textOf) };
}

/** One control with its text: the release's entries and the assertions it names, from the cache or one parallel read. */
export async function joinControl(catalogueReleaseId: string, control: StoredControl): Promise<JoinedControl> {
  const unread = (control.provider_guidance ?? []).filter((r) => !assertionTexts.get(assertionKey(r)));
  const [catalogue, found] = await Promise.all([
    releaseCatalogue(catalogueReleaseId),
    unread.length ? getMany(unread.map((r) => keys.assertion(r.provider_id, r.assertion_id))) : new Map<string, Item>(),
  ]);
  for (const [key, item] of found) assertionTexts.set(key, toText(item));
  return joined(control, catalogue.get(control.catalogue_id), (r) => assertionTexts.get(assertionKey(r)));
}

/** Every control of a project with its text: the release's entries and one Query per assurance release the controls name, kept. */
export async function joinControls(catalogueReleaseId: string, controls: readonly StoredControl[]): Promise<JoinedControl[]> {
  const releases = new Map(controls.flatMap((c) => (c.provider_guidance ?? []).map((r) => [`${r.provider_id}#${r.release_id}`, r] as const)));
  const [catalogue, ...texts] = await Promise.all([
    releaseCatalogue(catalogueReleaseId),
    ...[...releases.values()].map((r) => textsOfRelease(r.provider_id, r.release_id)),
  ]);
  const byId = new Map(texts.flatMap((t) => [...t]));
  return controls.map((c) => joined(c, catalogue.get(c.catalogue_id), (r) => byId.get(r.assertion_id)));
}
