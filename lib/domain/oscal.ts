import * as z from 'zod';
import { CLASSIFICATION_CODES, type Classification } from './classifications.js';
import { once } from './validation.js';

/**
 * Reads an ISM release from its OSCAL files: the catalog (controls and principles, nested in
 * groups) and the baseline profiles (one per classification and per Essential Eight maturity
 * level). Pure: no file system, no AWS.
 */
export type { Classification };
export const MATURITY_LEVELS = ['ML1', 'ML2', 'ML3'] as const;
export type MaturityLevel = (typeof MATURITY_LEVELS)[number];
export type Baseline = Classification | MaturityLevel;

export interface CatalogueEntry {
  /** The catalogue's own identifier, such as ism-1691 or ism-principle-gov-01. */
  id: string;
  kind: 'control' | 'principle';
  /** What people call it: ISM-1691, GOV-01. */
  label: string;
  title: string;
  statement: string;
  /** Zero-based position in the catalogue's sort order (the sort-id property). */
  position: number;
  /** Guideline, section and topic: the titles of the groups the entry sits in. */
  path: string[];
  classifications: Classification[];
  essential_eight: MaturityLevel[];
  revision: number | null;
  updated: string | null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An entry's `updated` as an ISO 8601 month (2025-12): the ISM writes the month a control last
 * changed as Dec-25. A value in neither form is answered as it is, rather than guessed at.
 */
export function updatedMonth(updated: string | null): string | null {
  if (!updated) return null;
  const written = /^([A-Z][a-z]{2})-(\d{2})$/.exec(updated);
  const month = written ? MONTHS.indexOf(written[1]!) : -1;
  if (written && month >= 0) return `20${written[2]}-${String(month + 1).padStart(2, '0')}`;
  return /^\d{4}-\d{2}/.test(updated) ? updated.slice(0, 7) : updated;
}

export interface ParsedRelease {
  version: string;
  title: string;
  published: string | null;
  entries: CatalogueEntry[];
}

const Prop = once(() => z.object({ name: z.string(), value: z.string(), ns: z.string().optional() }));
const Part = once(() => z.object({ name: z.string(), prose: z.string().optional() }));
interface RawControl {
  id: string;
  class?: string;
  title: string;
  props?: z.infer<ReturnType<typeof Prop>>[];
  parts?: z.infer<ReturnType<typeof Part>>[];
  controls?: RawControl[];
}
const Control = once(
  (): z.ZodType<RawControl> =>
    z.lazy(() =>
      z.object({
        id: z.string().min(1),
        class: z.string().optional(),
        title: z.string(),
        props: z.array(Prop()).optional(),
        parts: z.array(Part()).optional(),
        controls: z.array(Control()).optional(),
      }),
    ),
);
interface RawGroup {
  title: string;
  groups?: RawGroup[];
  controls?: RawControl[];
}
const Group = once(
  (): z.ZodType<RawGroup> => z.lazy(() => z.object({ title: z.string(), groups: z.array(Group()).optional(), controls: z.array(Control()).optional() })),
);
const Metadata = once(() => z.object({ title: z.string(), version: z.string().min(1), published: z.string().optional() }));

export const CatalogFile = once(() => z.object({ catalog: z.object({ metadata: Metadata(), groups: z.array(Group()) }) }));
export const ProfileFile = once(() =>
  z.object({
    profile: z.object({
      metadata: Metadata(),
      imports: z.array(z.object({ 'include-controls': z.array(z.object({ 'with-ids': z.array(z.string()) })).optional() })),
    }),
  }),
);
export type CatalogFile = z.infer<ReturnType<typeof CatalogFile>>;
export type ProfileFile = z.infer<ReturnType<typeof ProfileFile>>;

export class CatalogueError extends Error {
  override readonly name = 'CatalogueError';
}

const values = (c: RawControl, name: string) => (c.props ?? []).filter((p) => p.name === name).map((p) => p.value);
const one = (c: RawControl, name: string) => values(c, name)[0];

function entryOf(c: RawControl, path: string[]): Omit<CatalogueEntry, 'position'> & { sortId: string } {
  const sortId = one(c, 'sort-id');
  if (!sortId) throw new CatalogueError(`${c.id} has no sort-id`);
  const kind = c.class === 'ISM-principle' ? 'principle' : 'control';
  const revision = one(c, 'revision');
  return {
    id: c.id,
    kind,
    label: one(c, 'label') ?? c.id.toUpperCase(),
    title: c.title,
    statement: (c.parts ?? []).find((p) => p.name === 'statement')?.prose ?? '',
    path,
    classifications: CLASSIFICATION_CODES.filter((code) => values(c, 'applicability').includes(code)),
    essential_eight: MATURITY_LEVELS.filter((level) => values(c, 'essential-eight-applicability').includes(level)),
    revision: revision !== undefined && /^\d+$/.test(revision) ? Number(revision) : null,
    updated: one(c, 'updated') ?? null,
    sortId,
  };
}

/** The entries of a catalog, in its sort order. */
function catalogueEntries(file: CatalogFile): CatalogueEntry[] {
  const found: ReturnType<typeof entryOf>[] = [];
  const walk = (group: RawGroup, path: string[]) => {
    const here = [...path, group.title];
    const visit = (c: RawControl) => {
      found.push(entryOf(c, here));
      for (const child of c.controls ?? []) visit(child);
    };
    for (const c of group.controls ?? []) visit(c);
    for (const g of group.groups ?? []) walk(g, here);
  };
  for (const g of file.catalog.groups) walk(g, []);
  const ids = new Set<string>();
  for (const e of found) {
    if (ids.has(e.id)) throw new CatalogueError(`${e.id} appears twice`);
    ids.add(e.id);
  }
  // sort-id values are zero-padded per level, so their string order is the catalogue's order.
  found.sort((a, b) => (a.sortId < b.sortId ? -1 : a.sortId > b.sortId ? 1 : 0));
  return found.map(({ sortId: _s, ...e }, position) => ({ ...e, position }));
}

/** The ids a baseline profile includes. */
function profileIds(file: ProfileFile): Set<string> {
  return new Set(file.profile.imports.flatMap((i) => (i['include-controls'] ?? []).flatMap((x) => x['with-ids'])));
}

/**
 * A release: the catalog's entries, checked against every baseline profile given. The
 * applicability tags on each entry are what population filters by; a profile that disagrees with
 * them means the files are not one release, and nothing is imported.
 */
export function parseRelease(catalog: CatalogFile, profiles: Partial<Record<Baseline, ProfileFile>>): ParsedRelease {
  const entries = catalogueEntries(catalog);
  const known = new Set(entries.map((e) => e.id));
  const { version, title, published } = catalog.catalog.metadata;
  for (const [baseline, profile] of Object.entries(profiles) as [Baseline, ProfileFile][]) {
    if (profile.profile.metadata.version !== version) {
      throw new CatalogueError(`the ${baseline} profile is release ${profile.profile.metadata.version}, the catalog ${version}`);
    }
    const listed = profileIds(profile);
    const tagged = entries.filter((e) => (e.classifications as string[]).includes(baseline) || (e.essential_eight as string[]).includes(baseline));
    const unknown = [...listed].filter((id) => !known.has(id));
    const missing = tagged.filter((e) => !listed.has(e.id)).map((e) => e.id);
    if (unknown.length || missing.length || listed.size !== tagged.length) {
      throw new CatalogueError(`the ${baseline} profile does not match the catalog tags (${[...unknown, ...missing].slice(0, 5).join(', ')})`);
    }
  }
  return { version, title, published: published ?? null, entries };
}
