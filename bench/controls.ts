import type { DemoCredentials } from '../lib/local/demo.js';
import type { TraceRecorder } from './recorder.js';
import { Client, etagOf, projectToken } from './workload.js';

/** The fixed request counts of the controls workload, on the populated PROTECTED project. */
export const CONTROL_COUNTS = { listPages: 50, deepPages: 50, attention: 20, filtered: 20, gets: 100, edits: 50 } as const;

/** One phase per filter kind, after the edits and transitions, so that states and statuses vary. */
const FILTERED = [
  ['@filtered', 'filter[workflow_state]=editing&filter[q]=patch'],
  ['@state', 'filter[workflow_state]=editing'],
  ['@state_moved', 'filter[workflow_state]=ready_for_assessment'],
  ['@status', 'filter[implementation_status]=implemented'],
  ['@status_not_set', 'filter[implementation_status]=not_set'],
  ['@applicability', 'filter[applicability]=y'],
  ['@essential_eight', 'filter[essential_eight]=ML2'],
  ['@text', 'filter[q]=ism-17'],
  ['@text_deep', 'filter[q]=ism-1&page[number]=5'],
] as const;

/**
 * The controls workload: list pages (the first and one deep in the project) and attention lists,
 * control reads, implementation edits and one transition per edited control, then each kind of
 * filtered list, all recorded by operation so that the table shows requests, round trips and
 * capacity per request.
 */
export async function runControlsWorkload(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  recorder: TraceRecorder,
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const token = await projectToken(demo, projectId, 'Bench project token');
  const client = new Client(base, recorder);
  const controls = `/api/v1/projects/${projectId}/controls`;
  const list = (query: string) => client.send({ operation: 'listControls', method: 'GET', path: `${controls}?${query}`, token, expect: 200 });
  const get = (id: string) => client.send({ operation: 'getControl', method: 'GET', path: `${controls}/${id}`, token, expect: 200 });

  recorder.phase = undefined;
  const all: string[] = [];
  for (let page = 1; ; page++) {
    const reply = (await list(`page[size]=100&page[number]=${page}`)).json as unknown as { data: { id: string }[] };
    all.push(...reply.data.map((c) => c.id));
    if (reply.data.length < 100) break;
  }

  recorder.phase = '';
  log(`listControls: ${CONTROL_COUNTS.listPages} first pages of 50 over ${all.length} controls`);
  for (let i = 0; i < CONTROL_COUNTS.listPages; i++) await list('page[size]=50');
  recorder.phase = '@page19';
  log(`listControls: ${CONTROL_COUNTS.deepPages} pages of 50 deep in the project (page 19)`);
  for (let i = 0; i < CONTROL_COUNTS.deepPages; i++) await list('page[size]=50&page[number]=19');
  recorder.phase = '@attention';
  log(`listControls: ${CONTROL_COUNTS.attention} by applicability attention (conflicts)`);
  for (let i = 0; i < CONTROL_COUNTS.attention; i++) await list('filter[applicability_attention]=conflicts');
  recorder.phase = '';
  log(`getControl: ${CONTROL_COUNTS.gets} sequential`);
  for (let i = 0; i < CONTROL_COUNTS.gets; i++) await get(all[(i * 7) % all.length]!);
  log(`updateControlImplementation then transitionControl: ${CONTROL_COUNTS.edits} controls, each with the ETag the previous answer gave`);
  for (let i = 0; i < CONTROL_COUNTS.edits; i++) {
    const id = all[i]!;
    recorder.phase = undefined;
    const read = await get(id);
    recorder.phase = '';
    const edited = await client.send({
      operation: 'updateControlImplementation',
      method: 'PATCH',
      path: `${controls}/${id}/implementation`,
      token,
      expect: 200,
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etagOf(read, 'getControl') },
      body: { implementation_status: 'implemented', implementation_description: `Benchmark implementation ${i}` },
    });
    await client.send({
      operation: 'transitionControl',
      method: 'POST',
      path: `${controls}/${id}/transitions`,
      token,
      expect: 200,
      headers: { 'If-Match': etagOf(edited, 'updateControlImplementation') },
      body: { transition: 'editing_to_ready_for_assessment' },
    });
  }
  for (const [phase, query] of FILTERED) {
    recorder.phase = phase;
    log(`listControls: ${CONTROL_COUNTS.filtered} with ${query}`);
    for (let i = 0; i < CONTROL_COUNTS.filtered; i++) await list(query);
  }
  recorder.phase = undefined;
  return client.latencies;
}
