import { REGISTER_DEFINITION_IDS } from '../lib/domain/registers.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import type { TraceRecorder } from './recorder.js';
import { Client, projectToken } from './workload.js';

/** The fixed request counts of the registers workload, on the populated PROTECTED project. */
export const REGISTER_COUNTS = { rows: 1000, lists: 50, gets: 50, summaries: 50, reviews: 50 } as const;

/**
 * The project registers workload: a risk register of 1,000 rows created through the API, then
 * pages of 50 (the first and the last), row reads, the generated control summary (one summary
 * item whatever the project's size) and reviews, recorded by operation.
 */
export async function runRegistersWorkload(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  recorder: TraceRecorder,
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const token = await projectToken(demo, projectId, 'Bench registers token');
  const client = new Client(base, recorder);
  const registers = `/api/v1/projects/${projectId}/registers`;
  const risks = `${registers}/${REGISTER_DEFINITION_IDS.riskRegister}`;
  const summary = `${registers}/${REGISTER_DEFINITION_IDS.controlSummary}/rows`;

  recorder.phase = '';
  log(`createProjectRegisterRow: ${REGISTER_COUNTS.rows} risk register rows`);
  const ids: string[] = [];
  for (let i = 0; i < REGISTER_COUNTS.rows; i++) {
    const reply = await client.send({
      operation: 'createProjectRegisterRow',
      method: 'POST',
      path: `${risks}/rows`,
      token,
      expect: 201,
      headers: { 'Idempotency-Key': `bench-risk-${projectId}-${i}` },
      body: { data: { risk_id: `R-${String(i).padStart(4, '0')}`, title: `Benchmark risk ${i}`, status: 'open', review_due: '2027-06-30' } },
    });
    ids.push(reply.json!.data!.id!);
  }
  const list = (query: string) => client.send({ operation: 'listProjectRegisterRows', method: 'GET', path: `${risks}/rows?${query}`, token, expect: 200 });
  log(`listProjectRegisterRows: ${REGISTER_COUNTS.lists} first pages of 50 among ${REGISTER_COUNTS.rows} rows, then as many last pages`);
  for (let i = 0; i < REGISTER_COUNTS.lists; i++) await list('page[size]=50');
  recorder.phase = '@page20';
  for (let i = 0; i < REGISTER_COUNTS.lists; i++) await list('page[size]=50&page[number]=20');
  recorder.phase = '';
  log(`getProjectRegisterRow: ${REGISTER_COUNTS.gets} sequential`);
  for (let i = 0; i < REGISTER_COUNTS.gets; i++) {
    await client.send({ operation: 'getProjectRegisterRow', method: 'GET', path: `${risks}/rows/${ids[(i * 37) % ids.length]}`, token, expect: 200 });
  }
  recorder.phase = '@control_summary';
  log(`listProjectRegisterRows: ${REGISTER_COUNTS.summaries} control summaries`);
  for (let i = 0; i < REGISTER_COUNTS.summaries; i++)
    await client.send({ operation: 'listProjectRegisterRows', method: 'GET', path: summary, token, expect: 200 });
  recorder.phase = '';
  log(`createRegisterReview: ${REGISTER_COUNTS.reviews}, then as many review lists`);
  for (let i = 0; i < REGISTER_COUNTS.reviews; i++) {
    await client.send({
      operation: 'createRegisterReview',
      method: 'POST',
      path: `${risks}/reviews`,
      token,
      expect: 201,
      headers: { 'Idempotency-Key': `bench-review-${projectId}-${i}` },
      body: { notes: `Benchmark review ${i}` },
    });
  }
  for (let i = 0; i < REGISTER_COUNTS.reviews; i++)
    await client.send({ operation: 'listRegisterReviews', method: 'GET', path: `${risks}/reviews`, token, expect: 200 });
  recorder.phase = undefined;
  return client.latencies;
}
