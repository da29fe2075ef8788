import { storageUnavailable } from '../errors.js';
import type { StoredWorkingCopy, WorkingCopySummary } from '../domain/library.js';
import { keys, prefixes, withoutKeys } from './keys.js';
import { getMany, keyString, queryAll, type Item } from './read.js';
import { reviewDueKeys } from './review-due.js';
import type { WriteItem } from './transact.js';
import { replaceVersioned } from './versioned.js';

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

/**
 * The working copy from its two items, or undefined when they are torn: read apart (one
 * BatchGetItem is not isolated from a transaction), the content may be from another version.
 */
export function assembled(item: Item, content: Item | undefined): StoredWorkingCopy | undefined {
  const { content_bytes: _b, ...fields } = withoutKeys(item) as unknown as StoredWorkingCopy & { content_bytes: number };
  const contentVersion = Number(fields.content_version ?? 0);
  if (contentVersion === 0) return { ...fields, content_version: 0, content_markdown: null };
  if (Number(content?.version) !== contentVersion) return undefined;
  return { ...fields, content_version: contentVersion, content_markdown: String(content!.content_markdown) };
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

const SUMMARY_ATTRIBUTES = ['definition_id', 'owner_user_id', 'classification', 'date_live', 'review_due', 'updated_at', 'updated_by', 'content_bytes'];

/** The project's working copies by definition ULID, as summaries: one Query of the small items. */
export async function workingCopySummaries(projectId: string): Promise<Map<string, WorkingCopySummary>> {
  const names = Object.fromEntries(SUMMARY_ATTRIBUTES.map((a, i) => [`#a${i}`, a]));
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': prefixes.libraryItem },
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
    ConsistentRead: true,
  });
  return new Map(
    items.map((item) => {
      const { definition_id, content_bytes, ...fields } = item as Item & Record<string, unknown>;
      return [String(definition_id), { ...fields, content_bytes: Number(content_bytes ?? 0) } as unknown as WorkingCopySummary];
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
