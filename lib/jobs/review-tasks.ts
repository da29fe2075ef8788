import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { reviewTitle, type StoredTask, type TaskSubject } from '../domain/tasks.js';
import { ddb, tableName } from '../store/client.js';
import { gsi1, keys, type Key } from '../store/keys.js';
import { getMany, keyString } from '../store/read.js';
import { reviewDueOf } from '../store/review-due.js';
import { createTaskWrites, taskKeys } from '../store/tasks.js';
import { commit } from '../store/transact.js';

/**
 * The review sweep: every library item and project register row whose review_due has come (on or
 * before today, UTC) gets one review task per subject and date. The sparse review-due index is
 * read in pages; one BatchGetItem per page finds the claims already made and the projects, so
 * that subjects swept before cost a read, not a failed write. A claim item keyed by subject and
 * date, put in the task's transaction, keeps two concurrent sweeps from both creating the task.
 */
const PAGE = 50;

/** Monotonic, so that the tasks of one sweep still list in the order it created them. */
const nextTaskId = monotonicFactory();

class ReviewTaskTaken extends Error {
  override readonly name = 'ReviewTaskTaken';
}

interface Due {
  projectId: string;
  subject: TaskSubject;
}

export async function sweepReviewTasks(now: Date): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  let created = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :upto',
        // Sort keys start with the date: everything due today sorts below today's date and any suffix.
        ExpressionAttributeValues: { ':pk': gsi1.reviewDue, ':upto': `${today}#\uffff` },
        ProjectionExpression: 'GSI1SK',
        Limit: PAGE,
        ExclusiveStartKey,
      }),
    );
    const due = (out.Items ?? []).flatMap((item) => {
      const entry = reviewDueOf(String(item.GSI1SK));
      if (!entry) return [];
      const { subject, reviewDue } = entry;
      return [{ projectId: subject.projectId, subject: { kind: subject.kind, definition_id: subject.definitionId, id: subject.id, review_due: reviewDue } }];
    });
    created += await createMissing(due, now);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return created;
}

async function createMissing(due: Due[], now: Date): Promise<number> {
  if (due.length === 0) return 0;
  const claimKey = (d: Due): Key => taskKeys.reviewClaim(d.projectId, d.subject);
  const found = await getMany([...due.map(claimKey), ...due.map((d) => keys.project(d.projectId))]);
  let created = 0;
  for (const d of due) {
    const project = found.get(keyString(keys.project(d.projectId)));
    // Archived projects take no new work; a subject of a project that is gone has nobody to review it.
    if (!project || project.archived === true || found.has(keyString(claimKey(d)))) continue;
    const task: StoredTask = {
      id: nextTaskId(now.getTime()),
      project_id: d.projectId,
      kind: 'review',
      title: reviewTitle(d.subject),
      status: 'open',
      related_control_id: null,
      subject: d.subject,
      assignee_user_id: null,
      created_at: now.toISOString(),
      closed_at: null,
      version: 1,
    };
    try {
      await commit(createTaskWrites(task, { key: claimKey(d), onTaken: () => new ReviewTaskTaken() }));
      created++;
    } catch (error) {
      if (!(error instanceof ReviewTaskTaken)) throw error;
    }
  }
  return created;
}
