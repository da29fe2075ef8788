import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as z from 'zod';
import type { StoredControl } from '../domain/controls.js';
import { once } from '../domain/validation.js';
import { parseStored } from './entity.js';
import { keys } from './keys.js';
import { controlPositionKey } from './projects.js';
import type { Item } from './read.js';
import type { WriteItem } from './transact.js';

/**
 * What filtered control lists read instead of the project's controls: the control index and the
 * filter digest, small items prefetched with authentication, from which a filter and its exact
 * total are worked out in memory.
 *
 * - The control index (INDEX#CONTROLS) holds what never changes between recounts, compressed: the
 *   positions and each control's identifier, title and Essential Eight levels (2.4 KB for the 992
 *   controls of an ISM 2025.12.9 PROTECTED project, 2.6 KB for the 1,066 of TOP SECRET).
 * - The filter digest (INDEX#FILTERS#<shard>) holds what edits and transitions change: one string
 *   set of positions per workflow state, per implementation status, and for excluded controls. Each
 *   edit of a control moves it between sets in the edit's transaction; a recalculation pass leaves
 *   the digest to the recount it ends with, as it leaves the summary; a recount rewrites it.
 *   A write costs write units by the size of the whole item, so the digest is cut in shards by
 *   position: under 1 KB each for a thousand controls until about a quarter of them have moved,
 *   about 1.5 KB once all have (one read unit each either way).
 */

export const DIGEST_SHARDS = 3;
const shardOf = (position: number) => position % DIGEST_SHARDS;
export const digestKeys = (projectId: string) => Array.from({ length: DIGEST_SHARDS }, (_, shard) => keys.projectControlFilters(projectId, shard));

export type FilterFields = Pick<StoredControl, 'position' | 'workflow_state' | 'implementation_status' | 'applicability'>;
export type IndexFields = Pick<StoredControl, 'position' | 'catalogue_id' | 'label' | 'title' | 'essential_eight'>;

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';

/** A position in two base-64 characters (three past 4,095): set elements are most of the digest's size. */
export function positionCode(position: number): string {
  let code = '';
  let n = position;
  do {
    code = DIGITS[n % 64] + code;
    n = Math.floor(n / 64);
  } while (n > 0);
  return code.padStart(2, '0');
}

export const positionOfCode = (code: string) => [...code].reduce((n, ch) => n * 64 + DIGITS.indexOf(ch), 0);

const STATE = 's:';
const STATUS = 'i:';
const EXCLUDED = 'a:n';
const isSetName = (name: string) => name.startsWith(STATE) || name.startsWith(STATUS) || name === EXCLUDED;

/** The digest sets a control belongs to; no status and applicable are the absence of a set. */
const setsOf = (c: FilterFields): string[] => [
  `${STATE}${c.workflow_state}`,
  ...(c.implementation_status ? [`${STATUS}${c.implementation_status}`] : []),
  ...(c.applicability === 'n' ? [EXCLUDED] : []),
];

/** The whole digest, shard by shard, as population and recounts write it; `written_at` marks a shard complete. */
export function filterDigestItems(projectId: string, controls: readonly FilterFields[], at: string) {
  return digestKeys(projectId).map((key, shard) => {
    const sets = new Map<string, Set<string>>();
    for (const c of controls.filter((c) => shardOf(c.position) === shard)) {
      for (const name of setsOf(c)) sets.set(name, (sets.get(name) ?? new Set()).add(positionCode(c.position)));
    }
    return { ...key, entity: 'project-control-filters', ...Object.fromEntries(sets), revision: 0, written_at: at };
  });
}

/**
 * The digest change of one control's write, in that write's transaction: out of the sets it left,
 * into the sets it joined. The revision moves so that a recount running meanwhile starts over.
 */
export function filterDigestDelta(projectId: string, before: FilterFields, after: FilterFields): Extract<WriteItem, { kind: 'update' }> | undefined {
  const was = setsOf(before);
  const now = setsOf(after);
  const left = was.filter((s) => !now.includes(s));
  const joined = now.filter((s) => !was.includes(s));
  if (left.length === 0 && joined.length === 0) return undefined;
  const element = new Set([positionCode(after.position)]);
  const names: Record<string, string> = { '#rev': 'revision' };
  const values: Record<string, unknown> = { ':one': 1 };
  const clause = (sets: string[], tag: string) =>
    sets.map((s, i) => {
      names[`#${tag}${i}`] = s;
      values[`:${tag}${i}`] = element;
      return `#${tag}${i} :${tag}${i}`;
    });
  const add = [...clause(joined, 'j'), '#rev :one'].join(', ');
  const remove = left.length ? ` DELETE ${clause(left, 'l').join(', ')}` : '';
  return { kind: 'update', key: keys.projectControlFilters(projectId, shardOf(after.position)), update: `ADD ${add}${remove}`, names, values };
}

type Row = [id: string, label: string, title: string, levels: string];
/** Stands for the control's identifier in its stored title (a control character no catalogue title holds). */
const SELF = '\u0001';

/** The control index as lists read it: position keys in catalogue order, and what the text and Essential Eight filters match. */
export interface ControlIndex {
  positions: string[];
  /** Absent in an index written before it carried them, until the project's next recount. */
  rows?: Row[];
}

/**
 * The index's content, compressed once per recount: positions as differences (mostly 1), then
 * per control its identifier, title and Essential Eight levels, in lower case for the text filter.
 */
export function indexEntries(controls: readonly IndexFields[]): Buffer {
  const sorted = [...controls].sort((a, b) => a.position - b.position);
  const steps = sorted.map((c, i) => c.position - (i ? sorted[i - 1]!.position : 0));
  const rows = sorted.map((c): Row => {
    const id = c.catalogue_id.toLowerCase();
    const label = c.label.toLowerCase();
    // A label inside the identifier (ISM-1691 in ism-1691) matches whatever the identifier matches;
    // an identifier inside the title (Control: ism-1691) is written once.
    return [id, id.includes(label) ? '' : label, c.title.toLowerCase().replaceAll(id, SELF), c.essential_eight.map((l) => l.slice(2)).join('')];
  });
  return brotliCompressSync(JSON.stringify({ steps, rows }), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
}

const indexContentSchema = once(() => z.object({ steps: z.array(z.number().int()), rows: z.array(z.tuple([z.string(), z.string(), z.string(), z.string()])) }));

/**
 * The control index as stored (keys.projectControlIndex): its compressed entries, or, written
 * before it carried them, its position keys run together.
 */
const indexSchema = once(() =>
  z.looseObject({
    entries: z
      .instanceof(Uint8Array)
      .transform((bytes, ctx) => {
        try {
          return JSON.parse(brotliDecompressSync(bytes).toString('utf8'));
        } catch {
          ctx.issues.push({ code: 'custom', message: 'is not a compressed control index', input: bytes });
          return z.NEVER;
        }
      })
      .pipe(indexContentSchema())
      .optional(),
    positions: z.string().optional(),
  }),
);

export function readIndex(item: Item | undefined): ControlIndex | undefined {
  if (!item) return undefined;
  const { entries, positions } = parseStored(indexSchema(), item);
  if (!entries) return { positions: (positions ?? '').match(/.{4}/g) ?? [] };
  let position = 0;
  return {
    positions: entries.steps.map((step) => controlPositionKey((position += step))),
    rows: entries.rows.map(([id, label, title, levels]) => [id, label, title.replaceAll(SELF, id), levels]),
  };
}

/** The filter digest as lists read it: each set's position codes, from every shard, by the set's name. */
export type FilterDigest = ReadonlyMap<string, readonly string[]>;

/** A digest shard as stored (keys.projectControlFilters): complete once `written_at` is set. */
const shardSchema = once(() => z.looseObject({ written_at: z.string().optional() }));
/** Its sets of position codes, by name; its other attributes (the revision) pass through unread. */
const shardSetsSchema = once(() => z.looseRecord(z.string().refine(isSetName), z.set(z.string())));

/**
 * The digest from its shards; undefined while one is missing or incomplete (a project populated
 * before the digest existed, until its recount).
 */
export function readDigest(shards: readonly (Item | undefined)[]): FilterDigest | undefined {
  const digest = new Map<string, string[]>();
  for (const shard of shards) {
    if (!shard || !parseStored(shardSchema(), shard).written_at) return undefined;
    for (const [name, codes] of Object.entries(parseStored(shardSetsSchema(), shard))) {
      if (isSetName(name)) digest.set(name, [...(digest.get(name) ?? []), ...codes]);
    }
  }
  return digest;
}

export interface ListFilter {
  workflow_state?: string;
  applicability?: 'y' | 'n';
  /** `not_set` for none. */
  implementation_status?: string;
  essential_eight?: string;
  /** Lower case. */
  text?: string;
}

/** A digest set as index position keys. */
const setIn = (digest: FilterDigest, name: string) => new Set((digest.get(name) ?? []).map((code) => controlPositionKey(positionOfCode(code))));

/**
 * The position keys of the controls that match, in catalogue order, from the index and the
 * digest; undefined when they cannot answer (a project populated before they existed, until its
 * recount).
 */
export function matchingPositions(index: ControlIndex | undefined, digest: FilterDigest | undefined, f: ListFilter): string[] | undefined {
  const rows = index?.rows;
  if (!rows || !digest) return undefined;
  const tests: ((position: string, row: Row) => boolean)[] = [];
  if (f.workflow_state) {
    const members = setIn(digest, `${STATE}${f.workflow_state}`);
    tests.push((p) => members.has(p));
  }
  if (f.applicability) {
    const excluded = setIn(digest, EXCLUDED);
    tests.push((p) => excluded.has(p) === (f.applicability === 'n'));
  }
  if (f.implementation_status === 'not_set') {
    const statuses = [...digest.keys()].filter((k) => k.startsWith(STATUS));
    const withStatus = new Set(statuses.flatMap((k) => [...setIn(digest, k)]));
    tests.push((p) => !withStatus.has(p));
  } else if (f.implementation_status) {
    const members = setIn(digest, `${STATUS}${f.implementation_status}`);
    tests.push((p) => members.has(p));
  }
  const level = f.essential_eight?.slice(2);
  if (level) tests.push((_, row) => row[3].includes(level));
  const text = f.text;
  if (text) tests.push((_, row) => row[0].includes(text) || row[1].includes(text) || row[2].includes(text));
  return index.positions.filter((p, i) => tests.every((t) => t(p, rows[i]!)));
}

/** Controls between two wanted ones that a range read takes in rather than start another request. */
const BRIDGE = 2;

/**
 * The key ranges that read the wanted controls (a subset of all, both in catalogue order): runs of
 * neighbours share one Query, so a page of clustered matches costs what an unfiltered page costs.
 */
export function rangesFor(all: readonly string[], wanted: readonly string[]): { from: string; to: string }[] {
  const at = new Map(all.map((p, i) => [p, i]));
  const ranges: { from: string; to: string; last: number }[] = [];
  for (const p of wanted) {
    const i = at.get(p)!;
    const open = ranges.at(-1);
    if (open && i - open.last <= BRIDGE + 1) Object.assign(open, { to: p, last: i });
    else ranges.push({ from: p, to: p, last: i });
  }
  return ranges.map(({ from, to }) => ({ from, to }));
}
