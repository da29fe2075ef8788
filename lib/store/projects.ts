import * as z from 'zod';
import { CLASSIFICATION_CODES } from '../domain/classifications.js';
import { base32, digestBase32 } from '../domain/ids.js';
import { once } from '../domain/validation.js';
import { LIFECYCLE_STATES, POPULATION_STATUSES, type StoredProject } from '../domain/projects.js';
import { ESSENTIAL_EIGHT_TARGETS } from '../domain/setup-options.js';
import { itemAbsent } from './conditions.js';
import { collectionCount } from './counters.js';
import { parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { getMany, keyString, queryAll, queryPage, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { addToCounter } from './versioned.js';

/** A project as stored under keys.project: its own partition, which its controls and setup items share. */
export const projectSchema = once(() =>
  storedSchema<StoredProject>()(
    z.looseObject({
      id: z.string(),
      organisation_id: z.string(),
      system_id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      ism_release_id: z.string(),
      ism_release_version: z.string(),
      classification: z.enum(CLASSIFICATION_CODES),
      essential_eight_target: z.enum(ESSENTIAL_EIGHT_TARGETS.map((t) => t.value)),
      lifecycle_state: z.enum(LIFECYCLE_STATES),
      archived: z.boolean(),
      population_run_id: z.string().nullable(),
      population_status: z.enum(POPULATION_STATUSES),
      control_workflow: z.object({ edit_approval: z.boolean(), assessment_approval: z.boolean() }).optional(),
      created_at: z.string(),
      created_by: z.string(),
      updated_at: z.string(),
      version: z.number(),
    }),
  ),
);

export const toProject = (item: Item): StoredProject => parseStored(projectSchema(), item);

export const projectItem = (p: StoredProject) => ({ ...keys.project(p.id), entity: 'project', ...p });

/** A new project, its entry in the system's project range and the system's project count. */
export function createProjectWrites(p: StoredProject): WriteItem[] {
  return [
    { kind: 'put', item: projectItem(p), condition: itemAbsent() },
    { kind: 'put', item: { ...keys.systemProject(p.system_id, p.id), entity: 'system-project', project_id: p.id, organisation_id: p.organisation_id } },
    addToCounter(keys.systemCounters(p.system_id), 'projects', 1),
  ];
}

/** The system's project count, from its counters item. */
export const projectCount = (systemCounters: Item | undefined): number => collectionCount(systemCounters, 'projects');

const systemProjects = (systemId: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
  ExpressionAttributeValues: { ':pk': keys.systemCounters(systemId).PK, ':sk': prefixes.systemProject },
  // With the entry's key, so that an entry without its project is refused by name.
  ProjectionExpression: 'PK, SK, project_id',
});

const projectRefSchema = once(() => z.looseObject({ project_id: z.string() }));

/** The projects the system-range entries name, in their order. */
async function projectsOf(refs: readonly Item[]): Promise<StoredProject[]> {
  const wanted = refs.map((r) => keys.project(parseStored(projectRefSchema(), r).project_id));
  const found = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  return wanted.flatMap((k) => {
    const item = found.get(keyString(k));
    return item ? [toProject(item)] : [];
  });
}

/** One page of a system's projects, oldest first: the keys from the system range, then the projects. */
export async function projectsPage(systemId: string, page: { number: number; size: number }): Promise<StoredProject[]> {
  return projectsOf(await queryPage(systemProjects(systemId), page));
}

/** Every project of the given systems (the projects a context change touches). */
export async function projectsOfSystems(systemIds: readonly string[]): Promise<StoredProject[]> {
  return projectsOf((await Promise.all(systemIds.map((id) => queryAll(systemProjects(id))))).flat());
}

/**
 * A control's ULID, derived rather than drawn: the project's timestamp, then the entry's catalogue
 * position, then a digest of the project and entry. A redelivered or recovery population writes
 * the same keys again (no duplicates), and the key order of a project's controls is the
 * catalogue's order, so lists page in that order straight from the table.
 */
export function controlId(projectId: string, position: number, catalogueId: string): string {
  return `${projectId.slice(0, 10)}${controlPositionKey(position)}${digestBase32(`${projectId}\n${catalogueId}`, 12)}`;
}

/** The part of a control's ULID that orders it: its catalogue position. */
export const controlPositionKey = (position: number) => base32(position, 4);

/** Sort-key bounds of the controls from one position key to another (both included). */
export function controlRange(projectId: string, fromPosition: string, toPosition: string): { from: string; to: string } {
  const prefix = keys.control(projectId, projectId.slice(0, 10)).SK;
  // '~' sorts after every Crockford base-32 character, so the upper bound takes in any digest tail.
  return { from: `${prefix}${fromPosition}`, to: `${prefix}${toPosition}~` };
}
