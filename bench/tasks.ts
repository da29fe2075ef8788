import { createManualTask } from '../lib/admin/task-create.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import type { TraceRecorder } from './recorder.js';
import { Client, etagOf, projectToken } from './workload.js';

/** The fixed request counts of the tasks workload, on the populated project. */
export const TASK_COUNTS = { tasks: 60, gets: 100, lists: 20, claims: 50, comments: 50 } as const;

/**
 * The tasks workload: tasks created as the operator CLI creates them, then task reads, list pages,
 * claims and releases (each with the ETag the previous answer gave) and comments, recorded by
 * operation so that the table shows round trips and capacity per request.
 */
export async function runTasksWorkload(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  recorder: TraceRecorder,
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const token = await projectToken(demo, projectId, 'Bench task token');
  log(`tasks: ${TASK_COUNTS.tasks} created through the operator CLI's store path`);
  const ids: string[] = [];
  for (let i = 0; i < TASK_COUNTS.tasks; i++) ids.push((await createManualTask({ projectId, title: `Benchmark task ${i}` }, new Date())).id);
  const client = new Client(base, recorder);
  const tasks = `/api/v1/projects/${projectId}/tasks`;
  const get = (id: string) => client.send({ operation: 'getTask', method: 'GET', path: `${tasks}/${id}`, token, expect: 200 });

  recorder.phase = '';
  log(`getTask: ${TASK_COUNTS.gets} sequential`);
  for (let i = 0; i < TASK_COUNTS.gets; i++) await get(ids[i % ids.length]!);
  log(`listTasks: ${TASK_COUNTS.lists} pages of 50`);
  for (let i = 0; i < TASK_COUNTS.lists; i++) await client.send({ operation: 'listTasks', method: 'GET', path: `${tasks}?page[size]=50`, token, expect: 200 });
  log(`claimTask then releaseTask: ${TASK_COUNTS.claims} tasks`);
  for (let i = 0; i < TASK_COUNTS.claims; i++) {
    const id = ids[i]!;
    recorder.phase = undefined;
    const read = await get(id);
    recorder.phase = '';
    const claimed = await client.send({
      operation: 'claimTask',
      method: 'POST',
      path: `${tasks}/${id}/claim`,
      token,
      expect: 200,
      headers: { 'If-Match': etagOf(read, 'getTask') },
      body: {},
    });
    await client.send({
      operation: 'releaseTask',
      method: 'POST',
      path: `${tasks}/${id}/release`,
      token,
      expect: 200,
      headers: { 'If-Match': etagOf(claimed, 'claimTask') },
      body: {},
    });
  }
  log(`createTaskComment: ${TASK_COUNTS.comments} with receipts`);
  for (let i = 0; i < TASK_COUNTS.comments; i++) {
    await client.send({
      operation: 'createTaskComment',
      method: 'POST',
      path: `${tasks}/${ids[0]}/comments`,
      token,
      expect: 201,
      headers: { 'Idempotency-Key': `bench-comment-${i}` },
      body: { comment: `Benchmark comment ${i}` },
    });
  }
  recorder.phase = undefined;
  return client.latencies;
}
