import * as z from 'zod';
import { DOCUMENT_KEYS, GENERATION_ERRORS, GENERATION_STATUSES, type StoredDocument, type StoredGeneration, type StoredOutput } from '../domain/documents.js';
import { conflict } from '../errors.js';
import { and, attributeEquals, itemAbsent, leaseFree, memberEquals, memberOneOf, versionIs, type Condition } from './conditions.js';
import { once } from '../domain/validation.js';
import { parseFound, parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import type { Collection, Item } from './read.js';
import type { WriteItem } from './transact.js';

export const documentsCollection = (projectId: string): Collection => ({ PK: keys.project(projectId).PK, prefix: prefixes.document });

const outputKind = once(() => z.enum(['draft', 'final']));
const approval = once(() => ({ approved_by: z.string().nullable(), approved_by_name: z.string().nullable(), approved_at: z.string().nullable() }));

const generationSchema = once(() =>
  z.looseObject({
    id: z.string(),
    status: z.enum(GENERATION_STATUSES),
    options: z.looseObject({ output: outputKind(), draft_watermark: z.boolean(), show_implementation_notes: z.boolean(), show_assessor_notes: z.boolean() }),
    requested_by: z.string(),
    requested_by_name: z.string(),
    token_id: z.string(),
    requested_at: z.string(),
    ...approval(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    error_code: z.enum(GENERATION_ERRORS).nullable(),
    public_url: z.string().optional(),
  }),
);

const outputSchema = once(() =>
  z.looseObject({
    s3_key: z.string(),
    generation_id: z.string(),
    output: outputKind(),
    media_type: z.string(),
    file_name: z.string(),
    size: z.number(),
    sha256: z.string(),
    generated_at: z.string(),
    generated_by: z.string(),
    generated_by_name: z.string(),
    ...approval(),
  }),
);

/** A document's output row as stored under keys.document: its current generation and its latest completed output. */
export const documentSchema = once(() =>
  storedSchema<StoredDocument>()(
    z.looseObject({
      id: z.string(),
      project_id: z.string(),
      document_key: z.enum(DOCUMENT_KEYS),
      created_at: z.string(),
      created_by: z.string(),
      generation: storedSchema<StoredGeneration>()(generationSchema()),
      output: storedSchema<StoredOutput>()(outputSchema()).nullable(),
      version: z.number(),
    }),
  ),
);

export const toDocument = (item: Item): StoredDocument => parseStored(documentSchema(), item);

export const documentItem = (d: StoredDocument) => ({ ...keys.document(d.project_id, d.id), entity: 'document', ...d });

/** A project's generation lease, as takeLease writes it (a worker renews lease_until). */
const generationLeaseSchema = once(() => z.looseObject({ generation_id: z.string(), document_id: z.string(), taken_at: z.string(), lease_until: z.string() }));
export type GenerationLease = z.output<ReturnType<typeof generationLeaseSchema>>;

export const asGenerationLease = (item: Item | undefined): GenerationLease | undefined => parseFound(generationLeaseSchema(), item);

export const leaseHeld = () => conflict('generation_in_progress', 'Another generation holds the project lease; poll it, or try again when it has finished.');

/**
 * The lease a generation takes with its request: written only while no live lease exists, so that
 * of two requests racing for a project one wins and the other is 409. It expires by itself, so a
 * worker that crashes leaves the project blocked for one lease period at most.
 */
export function takeLease(projectId: string, d: StoredDocument, now: Date, leaseSeconds: number): WriteItem {
  const until = new Date(now.getTime() + leaseSeconds * 1000);
  return {
    kind: 'put',
    item: {
      ...keys.generationLease(projectId),
      entity: 'generation-lease',
      generation_id: d.generation.id,
      document_id: d.id,
      taken_at: now.toISOString(),
      lease_until: until.toISOString(),
      // Expired leases are only ever replaced; TTL tidies the last one of a quiet project.
      ttl: Math.ceil(until.getTime() / 1000) + 86_400,
    },
    condition: leaseFree('lease_until', now.toISOString()),
    onConditionFailed: leaseHeld,
  };
}

/**
 * A new output row with its first generation, or an existing row's next generation, conditional on
 * the row as the request read it. A row that moved meanwhile was a generation finishing between
 * the read and the write: the same answer as a held lease, since trying again succeeds.
 */
export function startGenerationWrites(next: StoredDocument, previousVersion: number | null, now: Date, leaseSeconds: number): WriteItem[] {
  const row: WriteItem = {
    kind: 'put',
    item: documentItem(next),
    condition: previousVersion === null ? itemAbsent() : versionIs(previousVersion),
    onConditionFailed: leaseHeld,
  };
  return [takeLease(next.project_id, next, now, leaseSeconds), row];
}

export const leaseIsMine = (generationId: string): Condition => attributeEquals('generation_id', generationId);

/** The row's generation is this one and in one of the expected states: a job never touches a generation that moved on. */
const generationIn = (generationId: string, expected: readonly StoredGeneration['status'][]): Condition =>
  and(memberEquals(['generation', 'id'], generationId), memberOneOf(['generation', 'status'], expected));

export function generationUpdate(
  projectId: string,
  documentId: string,
  generationId: string,
  fields: Partial<StoredGeneration>,
  expected: readonly StoredGeneration['status'][],
  output?: StoredOutput,
): WriteItem {
  const names: Record<string, string> = { '#gen': 'generation', '#v': 'version' };
  const values: Record<string, unknown> = { ':one': 1 };
  const sets = Object.entries(fields).map(([name, value], i) => {
    names[`#f${i}`] = name;
    values[`:f${i}`] = value;
    return `#gen.#f${i} = :f${i}`;
  });
  if (output) {
    names['#o'] = 'output';
    values[':o'] = output;
    sets.push('#o = :o');
  }
  return {
    kind: 'update',
    key: keys.document(projectId, documentId),
    update: `SET ${sets.join(', ')} ADD #v :one`,
    names,
    values,
    condition: generationIn(generationId, expected),
    onConditionFailed: () => new GenerationMovedOn(),
  };
}

export function releaseLease(projectId: string, generationId: string): WriteItem {
  return { kind: 'delete', key: keys.generationLease(projectId), condition: leaseIsMine(generationId), onConditionFailed: () => new GenerationMovedOn() };
}

/** The generation is no longer this job's to finish: replaced, finished, or its lease taken over. */
export class GenerationMovedOn extends Error {
  override readonly name = 'GenerationMovedOn';
}
