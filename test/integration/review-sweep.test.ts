import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../lib/domain/ids.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { sweepReviewTasks } from '../../lib/jobs/review-tasks.js';
import { sweep } from '../../lib/jobs/sweep.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { reviewDueKeys, type ReviewSubject } from '../../lib/store/review-due.js';
import { taskCount, taskKeys, tasksPage } from '../../lib/store/tasks.js';
import { getOne } from '../../lib/store/read.js';
import { createOrganisation, createProject } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

let organisationId: string;

beforeAll(async () => {
  await useTestServices();
  organisationId = (await createOrganisation()).id;
});

/** A project of the file's organisation; its id. */
const newProject = async (over: Partial<StoredProject> = {}) => (await createProject({ organisation_id: organisationId, ...over })).id;

const subjectKey = (s: ReviewSubject) =>
  s.kind === 'library-item' ? keys.libraryItem(s.projectId, s.definitionId) : keys.projectRegisterRow(s.projectId, s.definitionId, s.id);

/** The subject as the library and register writes store it: its review date and, with it, the review-due index keys. */
async function putSubject(subject: ReviewSubject, reviewDue: string, indexedAs = reviewDue): Promise<void> {
  const date = subject.kind === 'library-item' ? { review_due: reviewDue } : { data: { review_due: reviewDue } };
  await ddb().send(
    new PutCommand({ TableName: tableName(), Item: { ...subjectKey(subject), entity: 'fixture', version: 3, ...date, ...reviewDueKeys(subject, indexedAs) } }),
  );
}

async function dueItem(projectId: string, reviewDue: string, kind: ReviewSubject['kind'] = 'library-item'): Promise<ReviewSubject> {
  const definitionId = newUlid();
  const subject: ReviewSubject = { kind, projectId, definitionId, id: kind === 'library-item' ? definitionId : newUlid() };
  await putSubject(subject, reviewDue);
  return subject;
}

const tasksOf = (projectId: string) => tasksPage(projectId, { number: 1, size: 100 });
const NOW = new Date('2026-11-23T09:00:00Z');

/* Each test sweeps through the sweep's entry point, so that the command recording grants the sweep function what it reads and writes. */

describe('review sweep', () => {
  it('creates a review task for a subject whose review date has come', async () => {
    const projectId = await newProject();
    const subject = await dueItem(projectId, '2026-11-23', 'register-row');
    await sweep(NOW);
    expect(await tasksOf(projectId)).toMatchObject([
      {
        kind: 'review',
        status: 'open',
        related_control_id: null,
        subject: { kind: 'register-row', definition_id: subject.definitionId, id: subject.id, review_due: '2026-11-23' },
      },
    ]);
    expect(taskCount(await getOne(taskKeys.counters(projectId)))).toBe(1);
  });

  it('creates the task once however often it sweeps', async () => {
    const projectId = await newProject();
    await dueItem(projectId, '2026-10-01');
    await sweep(NOW);
    await sweep(NOW);
    expect(await tasksOf(projectId)).toHaveLength(1);
  });

  it('creates one task when two sweeps run at once', async () => {
    const projectId = await newProject();
    await dueItem(projectId, '2026-10-02');
    await Promise.all([sweep(NOW), sweep(NOW)]);
    expect(await tasksOf(projectId)).toHaveLength(1);
  });

  it('waits for a review date still to come', async () => {
    const projectId = await newProject();
    await dueItem(projectId, '2026-11-24');
    await sweep(NOW);
    expect(await tasksOf(projectId)).toHaveLength(0);
    await sweep(new Date('2026-11-24T00:00:00Z'));
    expect(await tasksOf(projectId)).toHaveLength(1);
  });

  it('creates another task when the subject comes due on a new date', async () => {
    const projectId = await newProject();
    const subject = await dueItem(projectId, '2026-09-01');
    await sweep(NOW);
    await putSubject(subject, '2026-11-01');
    await sweep(NOW);
    expect((await tasksOf(projectId)).map((t) => t.subject?.review_due)).toEqual(['2026-09-01', '2026-11-01']);
  });

  it('creates no task in an archived project', async () => {
    const projectId = await newProject({ archived: true });
    await dueItem(projectId, '2026-10-03');
    await sweep(NOW);
    expect(await tasksOf(projectId)).toHaveLength(0);
  });

  it('reads the index in pages: every due subject gets its task', async () => {
    const projectId = await newProject();
    for (let i = 0; i < 60; i++) await dueItem(projectId, '2026-08-01');
    await sweep(NOW);
    expect(await tasksOf(projectId)).toHaveLength(60);
    expect(taskCount(await getOne(taskKeys.counters(projectId)), 'open')).toBe(60);
  });

  it('takes a swept subject out of the review-due index without moving its version', async () => {
    const projectId = await newProject();
    const subject = await dueItem(projectId, '2026-10-04', 'register-row');
    await sweep(NOW);
    const item = await getOne(subjectKey(subject));
    expect(item).toMatchObject({ version: 3, data: { review_due: '2026-10-04' } });
    expect(item).not.toHaveProperty('GSI1PK');
  });

  it('creates no task for an index entry whose subject is no longer due on that date', async () => {
    const projectId = await newProject();
    const subject: ReviewSubject = { kind: 'library-item', projectId, definitionId: newUlid(), id: '' };
    subject.id = subject.definitionId;
    await putSubject(subject, '2026-12-24', '2026-10-05');
    await sweep(NOW);
    expect(await tasksOf(projectId)).toHaveLength(0);
  });

  it('reads at most its page budget of the index per tick', async () => {
    const projectId = await newProject();
    for (let i = 0; i < 3; i++) await dueItem(projectId, '2026-07-01');
    const send = vi.spyOn(ddb(), 'send');
    try {
      await sweepReviewTasks(NOW, { pageSize: 1, maxPages: 2 });
      expect(send.mock.calls.filter(([command]) => command.constructor.name === 'QueryCommand')).toHaveLength(2);
    } finally {
      send.mockRestore();
    }
  });
});
