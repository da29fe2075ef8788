import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createManualTask, TaskRefusedError } from '../../../lib/admin/task-create.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { controlItem } from '../../../lib/store/controls.js';
import { keys } from '../../../lib/store/keys.js';
import type { Item } from '../../../lib/store/read.js';
import { taskItem, taskKeys } from '../../../lib/store/tasks.js';
import { buildControl, buildProject, buildUser, storedAccess } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(TransactWriteCommand).resolves({});
});

const now = new Date('2026-11-27T06:00:00.000Z');
const project = buildProject();
const control = buildControl({ project_id: project.id });
const assignee = buildUser();

const projectItem: Item = { ...keys.project(project.id), entity: 'project', ...project };
const userItem = (over = {}): Item => ({ ...keys.user(assignee.id), entity: 'user', ...assignee, ...over });
const accessItem = (permissions: string[]): Item => storedAccess(assignee.id, { kind: 'project', id: project.id }, permissions);
const stored = (...items: Item[]) => ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: items } });
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);

const fullInput = { projectId: project.id, title: 'Confirm the backup owner', controlId: control.id, assigneeId: assignee.id };
const storedForFullInput = () => stored(projectItem, controlItem(control), userItem(), accessItem(['view-controls', 'view-tasks']));

describe('createManualTask', () => {
  it('creates an open manual task with its title, related control and assignee', async () => {
    storedForFullInput();
    expect(await createManualTask(fullInput, now)).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      project_id: project.id,
      kind: 'manual',
      title: 'Confirm the backup owner',
      status: 'open',
      related_control_id: control.id,
      subject: null,
      assignee_user_id: assignee.id,
      created_at: now.toISOString(),
      closed_at: null,
      version: 1,
    });
  });

  it('reads the project, the control, the assignee and their project access together, strongly consistent', async () => {
    storedForFullInput();
    await createManualTask(fullInput, now);
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input)).toEqual([
      {
        RequestItems: {
          [tableName()]: {
            Keys: [keys.project(project.id), keys.control(project.id, control.id), keys.user(assignee.id), keys.projectAccess(assignee.id, project.id)],
            ConsistentRead: true,
          },
        },
      },
    ]);
  });

  it('reads only the project for a task related to nothing and assigned to nobody', async () => {
    stored(projectItem);
    await createManualTask({ projectId: project.id, title: 'Confirm' }, now);
    expect(ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems?.[tableName()]?.Keys).toEqual([keys.project(project.id)]);
  });

  it('writes, in one transaction and only while the control is there, the task, its count and an audit event of the operator', async () => {
    storedForFullInput();
    const task = await createManualTask(fullInput, now);
    expect(transactions()).toEqual([
      {
        TransactItems: [
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: keys.control(project.id, control.id),
              ConditionExpression: 'attribute_exists(#cnd0)',
              ExpressionAttributeNames: { '#cnd0': 'PK' },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: taskItem(task),
              ConditionExpression: 'attribute_not_exists(#cnd0)',
              ExpressionAttributeNames: { '#cnd0': 'PK' },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: taskKeys.counters(project.id),
              UpdateExpression: 'ADD #n0 :d0',
              ExpressionAttributeNames: { '#n0': 'open' },
              ExpressionAttributeValues: { ':d0': 1 },
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.audit(project.organisation_id, '2026-11-27', expect.stringMatching(/^2026-11-27T06:00:00.000Z#/)),
                entity: 'audit',
                id: expect.any(String),
                at: now.toISOString(),
                kind: 'TASK_CREATED',
                request_id: `cli-${task.id}`,
                method: 'CLI',
                route: 'admin task create',
                status: 0,
                actor_id: 'operator',
                organisation_id: project.organisation_id,
                target: { project: project.id, task: task.id },
              },
            },
          },
        ],
      },
    ]);
  });

  it.each([
    ['a blank title', ' '],
    ['a title of two lines', 'Confirm\nthe owner'],
    ['a title of more than 200 characters', 'x'.repeat(201)],
  ])('refuses %s, reading nothing', async (_label, title) => {
    await expect(createManualTask({ projectId: project.id, title }, now)).rejects.toThrow(
      new TaskRefusedError('--title must be one line of 1 to 200 characters'),
    );
    expect(ddb.calls()).toEqual([]);
  });

  it('refuses a project that does not exist, writing nothing', async () => {
    stored();
    await expect(createManualTask({ projectId: project.id, title: 'T' }, now)).rejects.toThrow(new TaskRefusedError(`no project ${project.id}`));
    expect(transactions()).toEqual([]);
  });

  it('refuses a control that is not one of the project', async () => {
    stored(projectItem, userItem(), accessItem(['view-tasks']));
    await expect(createManualTask(fullInput, now)).rejects.toThrow(`control ${control.id} is not a control of project ${project.id}`);
  });

  it.each([
    ['is disabled', () => stored(projectItem, controlItem(control), userItem({ status: 'disabled' }), accessItem(['view-tasks']))],
    ['does not exist', () => stored(projectItem, controlItem(control), accessItem(['view-tasks']))],
    ['has no access to the project', () => stored(projectItem, controlItem(control), userItem())],
    ['may not see the project’s tasks', () => stored(projectItem, controlItem(control), userItem(), accessItem(['view-controls']))],
  ])('refuses an assignee who %s', async (_label, arrange) => {
    arrange();
    await expect(createManualTask(fullInput, now)).rejects.toThrow(
      new TaskRefusedError(`user ${assignee.id} is not an active user with view-tasks on project ${project.id}`),
    );
  });

  it('refuses a control deleted between the read and the write', async () => {
    storedForFullInput();
    ddb
      .on(TransactWriteCommand)
      .rejects(
        new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }),
      );
    await expect(createManualTask(fullInput, now)).rejects.toThrow(new TaskRefusedError(`control ${control.id} is not a control of project ${project.id}`));
  });
});
