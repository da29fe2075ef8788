import { openTask, reviewTitle, type TaskSubject } from '../domain/tasks.js';
import { attributeEquals, memberEquals } from '../store/conditions.js';
import { gsi1, keys, type Key } from '../store/keys.js';
import { getMany, keyString, queryPages } from '../store/read.js';
import { reviewDueOf } from '../store/review-due.js';
import { createTaskWrites, taskKeys } from '../store/tasks.js';
import { commit, type WriteItem } from '../store/transact.js';

/**
 * The review sweep: every library item and project register row whose review_due has come (on or
 * before today, UTC) gets one review task per subject and date. The sparse review-due index is
 * read in pages; one BatchGetItem per page finds the claims already made and the projects. A
 * claim item keyed by subject and date, put in the task's transaction, keeps two concurrent
 * sweeps from both creating the task. The same transaction takes the subject out of the index
 * (if it is still due on that date), so that a subject is read once per date, not on every tick;
 * a later whole-item write with a review_due puts it back. At most 20 pages per tick, so
 * that a backlog cannot hold up the rest of the sweep: what is left is still in the index at the
 * next tick.
 */
const LIMITS = { pageSize: 50, maxPages: 20 };

class ReviewTaskTaken extends Error {
  override readonly name = 'ReviewTaskTaken';
}

/** The index entry was read before the subject's review date changed or the subject went: nothing is due. */
class StaleIndexEntry extends Error {
  override readonly name = 'StaleIndexEntry';
}

interface Due {
  projectId: string;
  subject: TaskSubject;
}

export async function sweepReviewTasks(now: Date, limits = LIMITS): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  let created = 0;
  const pages = queryPages(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :upto',
      // Sort keys start with the date: everything due today sorts below today's date and any suffix.
      ExpressionAttributeValues: { ':pk': gsi1.reviewDue, ':upto': `${today}#\uffff` },
      ProjectionExpression: 'GSI1SK',
      Limit: limits.pageSize,
    },
    { maxPages: limits.maxPages },
  );
  for await (const page of pages) {
    const due = page.flatMap((item) => {
      const entry = reviewDueOf(String(item.GSI1SK));
      if (!entry) return [];
      const { subject, reviewDue } = entry;
      return [{ projectId: subject.projectId, subject: { kind: subject.kind, definition_id: subject.definitionId, id: subject.id, review_due: reviewDue } }];
    });
    created += await createMissing(due, now);
  }
  return created;
}

/**
 * The subject out of the review-due index, only while it is still due on the date the index named,
 * and without a new version: the item's content and ETag do not change.
 */
function leaveIndex(d: Due): WriteItem {
  const { subject } = d;
  const library = subject.kind === 'library-item';
  return {
    kind: 'update',
    key: library ? keys.libraryItem(d.projectId, subject.definition_id) : keys.projectRegisterRow(d.projectId, subject.definition_id, subject.id),
    update: 'REMOVE #gpk, #gsk',
    names: { '#gpk': 'GSI1PK', '#gsk': 'GSI1SK' },
    values: {},
    condition: library ? attributeEquals('review_due', subject.review_due) : memberEquals(['data', 'review_due'], subject.review_due),
    onConditionFailed: () => new StaleIndexEntry(),
  };
}

async function settle(writes: WriteItem[]): Promise<boolean> {
  try {
    await commit(writes);
    return true;
  } catch (error) {
    if (error instanceof ReviewTaskTaken || error instanceof StaleIndexEntry) return false;
    throw error;
  }
}

async function createMissing(due: Due[], now: Date): Promise<number> {
  if (due.length === 0) return 0;
  const claimKey = (d: Due): Key => taskKeys.reviewClaim(d.projectId, d.subject);
  const found = await getMany([...due.map(claimKey), ...due.map((d) => keys.project(d.projectId))]);
  let created = 0;
  for (const d of due) {
    const project = found.get(keyString(keys.project(d.projectId)));
    // Archived projects take no new work and are never unarchived; a subject of a project that is gone has nobody to review it.
    if (!project || project.archived === true || found.has(keyString(claimKey(d)))) {
      await settle([leaveIndex(d)]);
      continue;
    }
    const task = openTask({ project_id: d.projectId, kind: 'review', title: reviewTitle(d.subject), subject: d.subject }, now);
    if (await settle([...createTaskWrites(task, { key: claimKey(d), onTaken: () => new ReviewTaskTaken() }), leaveIndex(d)])) created++;
  }
  return created;
}
