import * as z from 'zod';
import { CLASSIFICATION_CODES } from '../domain/classifications.js';
import { storageUnavailable } from '../errors.js';
import type { StoredWorkingCopy, WorkingCopySummary } from '../domain/library.js';
import { parseStored, storedSchema } from './entity.js';
import { keys, prefixes } from './keys.js';
import { getMany, keyString, queryAll, type Item } from './read.js';
import { reviewDueKeys } from './review-due.js';
import type { WriteItem } from './transact.js';
import { replaceVersioned } from './versioned.js';
import { once } from '../domain/validation.js';

/**
 * A project's working copies of library definitions: per definition, a small item with the
 * metadata, the content's size and the review-due index keys (`LIBRARY#<definition>`), and the
 * Markdown in an item of its own (`LIBCONTENT#<definition>`) that names the version that wrote it.
 * Lists read the small items only; edits that leave the content alone never rewrite it; and the
 * review-due index, which projects whole items, never copies the content.
 */
export const workingCopyKeys = (projectId: string, definitionId: string) => [
  keys.libraryItem(projectId, definitionId),
  keys.libraryContent(projectId, definitionId),
];

/** A working copy's small item, under keys.libraryItem: everything but the content, and the content's size. */
type StoredLibraryItem = Omit<StoredWorkingCopy, 'content_markdown'> & { content_bytes: number };

/** Items written before the content had an item of its own carry neither its version nor its size: they read as without content. */
export const libraryItemSchema = once(() =>
  storedSchema<StoredLibraryItem>()(
    z.looseObject({
      project_id: z.string(),
      definition_id: z.string(),
      owner_user_id: z.string().nullable(),
      classification: z.enum(CLASSIFICATION_CODES).nullable(),
      date_live: z.string().nullable(),
      review_due: z.string().nullable(),
      updated_at: z.string().nullable(),
      updated_by: z.string().nullable(),
      version: z.number(),
      content_version: z.number().default(0),
      content_bytes: z.number().default(0),
    }),
  ),
);

/** The content item, under keys.libraryContent: its version is the working copy's version that wrote it. */
export const libraryContentSchema = once(() =>
  z.looseObject({ project_id: z.string(), definition_id: z.string(), content_markdown: z.string(), version: z.number() }),
);

/** What the library list reads of each small item: a projection, so that it never reads more than the summary. */
const summarySchema = once(() =>
  storedSchema<WorkingCopySummary & { definition_id: string }>()(
    libraryItemSchema().pick({
      definition_id: true,
      owner_user_id: true,
      classification: true,
      date_live: true,
      review_due: true,
      updated_at: true,
      updated_by: true,
      content_bytes: true,
    }),
  ),
);

/**
 * The working copy from its two items, or undefined when they are torn: read apart (one
 * BatchGetItem is not isolated from a transaction), the content may be from another version.
 */
export function assembled(item: Item, content: Item | undefined): StoredWorkingCopy | undefined {
  const { content_bytes: _b, ...fields } = parseStored(libraryItemSchema(), item);
  if (fields.content_version === 0) return { ...fields, content_markdown: null };
  if (!content || content.version !== fields.content_version) return undefined;
  return { ...fields, content_markdown: parseStored(libraryContentSchema(), content).content_markdown };
}

/** Reads a torn pair again until both items are of one version (writes are transactions, so the next read usually is). */
export async function rereadWorkingCopy(projectId: string, definitionId: string): Promise<StoredWorkingCopy | undefined> {
  const itemKey = keys.libraryItem(projectId, definitionId);
  const contentKey = keys.libraryContent(projectId, definitionId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const found = await getMany([itemKey, contentKey]);
    const item = found.get(keyString(itemKey));
    if (!item) return undefined;
    const copy = assembled(item, found.get(keyString(contentKey)));
    if (copy) return copy;
  }
  throw storageUnavailable();
}

// The keys too, so that an item that fails the summary's schema is named.
const summaryAttributes = once(() => ['PK', 'SK', ...Object.keys(summarySchema().shape)]);

/** The project's working copies by definition ULID, as summaries: one Query of the small items. */
export async function workingCopySummaries(projectId: string): Promise<Map<string, WorkingCopySummary>> {
  const names = Object.fromEntries(summaryAttributes().map((a, i) => [`#a${i}`, a]));
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': prefixes.libraryItem },
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
    ConsistentRead: true,
  });
  return new Map(
    items.map((item) => {
      const { definition_id, ...summary } = parseStored(summarySchema(), item);
      return [definition_id, summary];
    }),
  );
}

/**
 * The working copy replaced if it is still the version the client's ETag named (version 0: still
 * absent), with its review-due index keys; the content item written or removed when the content
 * changed.
 */
export function writeWorkingCopy(next: StoredWorkingCopy, expectedVersion: number, contentChanged: boolean): WriteItem[] {
  const { version: _v, content_markdown, ...fields } = next;
  const subject = { kind: 'library-item', projectId: next.project_id, definitionId: next.definition_id, id: next.definition_id } as const;
  const contentKey = keys.libraryContent(next.project_id, next.definition_id);
  const content: WriteItem[] = !contentChanged
    ? []
    : content_markdown === null
      ? [{ kind: 'delete', key: contentKey }]
      : [
          {
            kind: 'put',
            item: {
              ...contentKey,
              entity: 'library-content',
              project_id: next.project_id,
              definition_id: next.definition_id,
              content_markdown,
              version: next.content_version,
            },
          },
        ];
  return [
    replaceVersioned(
      {
        ...keys.libraryItem(next.project_id, next.definition_id),
        entity: 'library-item',
        ...fields,
        content_bytes: Buffer.byteLength(content_markdown ?? '', 'utf8'),
        ...reviewDueKeys(subject, next.review_due),
      },
      expectedVersion,
    ),
    ...content,
  ];
}
