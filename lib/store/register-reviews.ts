import * as z from 'zod';
import { RegisterReview, type StoredRegisterReview } from '../domain/register-reviews.js';
import { itemAbsent } from './conditions.js';
import { collectionCounts, countOf, REGISTER_REVIEWS } from './counters.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryPage, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { addToCounter } from './versioned.js';
import { once } from '../domain/validation.js';

/**
 * Register reviews live in the project partition, whichever level owns the definition: a review
 * is the project's assertion. The sort key inverts the reviewed time, so that a Query lists the
 * newest first and, within one millisecond, by ID.
 */
const LATEST = 9_999_999_999_999;
const invertedTime = (at: string) => String(LATEST - Date.parse(at)).padStart(13, '0');

/** A review as stored under keys.registerReview: what the API shows of it, and its project. */
export const reviewSchema = once(() => z.looseObject({ ...RegisterReview().shape, project_id: z.string() }) satisfies z.ZodType<StoredRegisterReview>);

export const toReview = (item: Item): StoredRegisterReview => parseStored(reviewSchema(), item);

export const reviewCountAttribute = (definitionId: string) => `${REGISTER_REVIEWS}${definitionId}`;

/** A register's review count, from the project's counters item. */
export const reviewCount = (projectCounters: Item | undefined, definitionId: string): number =>
  countOf(collectionCounts(projectCounters), reviewCountAttribute(definitionId));

/** The review and the count of its register's reviews, together. */
export function reviewWrites(review: StoredRegisterReview): WriteItem[] {
  return [
    {
      kind: 'put',
      item: {
        ...keys.registerReview(review.project_id, review.definition_id, invertedTime(review.reviewed_at), review.id),
        entity: 'register-review',
        ...review,
      },
      condition: itemAbsent(),
    },
    addToCounter(keys.projectCounters(review.project_id), reviewCountAttribute(review.definition_id), 1),
  ];
}

export async function reviewsPage(projectId: string, definitionId: string, page: { number: number; size: number }): Promise<StoredRegisterReview[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': `${prefixes.registerReview}${definitionId}#` },
    },
    page,
  );
  return items.map(toReview);
}
