import { LIBRARY_DEFINITIONS } from '../lib/domain/library-definitions.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import type { TraceRecorder } from './recorder.js';
import { Client, etagOf, projectToken } from './workload.js';

/** The fixed request counts of the library workload. */
export const LIBRARY_COUNTS = { gets: 100, lists: 50, owners: 50, edits: 50 } as const;

/** A policy of some 20 KB, the size docs/operations/library.md's list cost figures assume. */
const CONTENT = `# Policy\n\n${'The organisation protects its systems and information. '.repeat(360)}\n`;

/**
 * The library workload on the bench project: every definition's working copy written once, then
 * item reads, library lists, document-owner pages and edits that each name the ETag the previous
 * answer gave, recorded by operation.
 */
export async function runLibraryWorkload(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  recorder: TraceRecorder,
  log: (line: string) => void,
): Promise<Map<string, number[]>> {
  const token = await projectToken(demo, projectId, 'Bench library token');
  const client = new Client(base, recorder);
  const library = `/api/v1/projects/${projectId}/library`;
  const get = (id: string) => client.send({ operation: 'getLibraryItem', method: 'GET', path: `${library}/${id}`, token, expect: 200 });
  const update = (id: string, etag: string, body: unknown) =>
    client.send({
      operation: 'updateLibraryItem',
      method: 'PATCH',
      path: `${library}/${id}`,
      token,
      expect: 200,
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etag },
      body,
    });

  recorder.phase = '@first';
  log(`updateLibraryItem: the first edit of each of ${LIBRARY_DEFINITIONS.length} definitions (~20 KB of Markdown each)`);
  const etags = new Map<string, string>();
  for (const d of LIBRARY_DEFINITIONS) {
    recorder.phase = undefined;
    const empty = await get(d.id);
    recorder.phase = '@first';
    const written = await update(d.id, etagOf(empty, 'getLibraryItem'), { content_markdown: CONTENT, owner_user_id: demo.user_id, date_live: '2026-01-01' });
    etags.set(d.id, etagOf(written, 'updateLibraryItem'));
  }
  recorder.phase = '';
  log(`getLibraryItem: ${LIBRARY_COUNTS.gets} sequential`);
  for (let i = 0; i < LIBRARY_COUNTS.gets; i++) await get(LIBRARY_DEFINITIONS[i % LIBRARY_DEFINITIONS.length]!.id);
  log(`listLibrary: ${LIBRARY_COUNTS.lists} sequential over ${LIBRARY_DEFINITIONS.length} written copies`);
  for (let i = 0; i < LIBRARY_COUNTS.lists; i++) await client.send({ operation: 'listLibrary', method: 'GET', path: library, token, expect: 200 });
  log(`listDocumentOwners: ${LIBRARY_COUNTS.owners} sequential`);
  for (let i = 0; i < LIBRARY_COUNTS.owners; i++) {
    await client.send({ operation: 'listDocumentOwners', method: 'GET', path: `/api/v1/projects/${projectId}/document-owners`, token, expect: 200 });
  }
  log(`updateLibraryItem: ${LIBRARY_COUNTS.edits} edits, each with the ETag the previous answer gave`);
  for (let i = 0; i < LIBRARY_COUNTS.edits; i++) {
    const id = LIBRARY_DEFINITIONS[i % LIBRARY_DEFINITIONS.length]!.id;
    const edited = await update(id, etags.get(id)!, { review_due: `2027-01-${String((i % 28) + 1).padStart(2, '0')}`, owner_user_id: demo.user_id });
    etags.set(id, etagOf(edited, 'updateLibraryItem'));
  }
  recorder.phase = undefined;
  return client.latencies;
}
