import type { DemoCredentials } from '../lib/local/demo.js';
import type { TraceRecorder } from './recorder.js';
import { Client, etagOf, projectToken } from './workload.js';

/** The fixed request counts of the evidence workload, on one control of the populated project. */
export const EVIDENCE_COUNTS = { items: 20, gets: 100, itemGets: 100, edits: 20 } as const;

/**
 * The evidence workload: a control given 20 evidence items (references), then control reads that
 * list all 20 (still one sequential round trip: the items are queried beside authentication),
 * item reads and metadata edits, recorded by operation.
 */
export async function runEvidenceWorkload(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  recorder: TraceRecorder,
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const token = await projectToken(demo, projectId, 'Bench evidence token');
  const client = new Client(base, recorder);
  const controls = `/api/v1/projects/${projectId}/controls`;
  recorder.phase = undefined;
  // Far from the controls the controls workload moved out of editing.
  const page = (await client.send({ operation: 'listControls', method: 'GET', path: `${controls}?page[size]=1&page[number]=500`, token, expect: 200 }))
    .json as unknown as { data: { id: string }[] };
  const control = `${controls}/${page.data[0]!.id}`;

  recorder.phase = '';
  log(`createEvidenceReference: ${EVIDENCE_COUNTS.items} on one control`);
  const ids: string[] = [];
  for (let i = 0; i < EVIDENCE_COUNTS.items; i++) {
    const created = await client.send({
      operation: 'createEvidenceReference',
      method: 'POST',
      path: `${control}/evidence/references`,
      token,
      expect: 201,
      body: { kind: 'external_reference', title: `Benchmark record ${i}`, external_reference: `https://records.example.test/${i}`, collected_on: '2026-11-01' },
    });
    ids.push((created.json as unknown as { data: { id: string } }).data.id);
  }
  recorder.phase = '@20_evidence';
  log(`getControl: ${EVIDENCE_COUNTS.gets} sequential, each listing ${EVIDENCE_COUNTS.items} evidence items`);
  for (let i = 0; i < EVIDENCE_COUNTS.gets; i++) await client.send({ operation: 'getControl', method: 'GET', path: control, token, expect: 200 });
  recorder.phase = '';
  log(`getEvidence: ${EVIDENCE_COUNTS.itemGets} sequential`);
  const item = (id: string) => client.send({ operation: 'getEvidence', method: 'GET', path: `${control}/evidence/${id}`, token, expect: 200 });
  for (let i = 0; i < EVIDENCE_COUNTS.itemGets; i++) await item(ids[i % ids.length]!);
  log(`updateEvidence: ${EVIDENCE_COUNTS.edits}, each with the item ETag`);
  for (let i = 0; i < EVIDENCE_COUNTS.edits; i++) {
    recorder.phase = undefined;
    const read = await item(ids[i]!);
    recorder.phase = '';
    await client.send({
      operation: 'updateEvidence',
      method: 'PATCH',
      path: `${control}/evidence/${ids[i]}`,
      token,
      expect: 200,
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etagOf(read, 'getEvidence') },
      body: { title: `Benchmark record ${i}, reviewed` },
    });
  }
  recorder.phase = undefined;
  return client.latencies;
}
