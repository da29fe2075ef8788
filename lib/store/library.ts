import { forbidden } from '../errors.js';
import type { StoredWorkingCopy, WorkingCopySummary } from '../domain/library.js';
import { memberEquals } from './conditions.js';
import { keys, prefixes, withoutKeys } from './keys.js';
import { queryAll, type Item } from './read.js';
import { reviewDueKeys } from './review-due.js';
import type { WriteItem } from './transact.js';
import { replaceVersioned } from './versioned.js';

/**
 * A project's working copies of library definitions, one item each in the project partition
 * (`LIBRARY#<definition>`), written whole. The item keeps its content's size beside the content, so
 * that the list reads summaries without the content.
 */
export const toWorkingCopy = (item: Item): StoredWorkingCopy => {
  const { content_bytes: _b, ...rest } = withoutKeys(item);
  return rest as unknown as StoredWorkingCopy;
};

const SUMMARY_ATTRIBUTES = ['definition_id', 'owner_user_id', 'classification', 'date_live', 'review_due', 'updated_at', 'updated_by', 'content_bytes'];

/** The project's working copies by definition ULID, as summaries: one Query, content left out. */
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
 * absent), with its review-due index keys, in a transaction that also finds the project unarchived.
 */
export function writeWorkingCopy(next: StoredWorkingCopy, expectedVersion: number): WriteItem[] {
  const { version: _v, ...fields } = next;
  const subject = { kind: 'library-item', projectId: next.project_id, definitionId: next.definition_id, id: next.definition_id } as const;
  return [
    replaceVersioned(
      {
        ...keys.libraryItem(next.project_id, next.definition_id),
        entity: 'library-item',
        ...fields,
        content_bytes: Buffer.byteLength(next.content_markdown ?? '', 'utf8'),
        ...reviewDueKeys(subject, next.review_due),
      },
      expectedVersion,
    ),
    {
      kind: 'check',
      key: keys.project(next.project_id),
      condition: memberEquals(['archived'], false, true),
      onConditionFailed: () => forbidden('project_archived', 'The project is archived; its library cannot change.'),
    },
  ];
}
