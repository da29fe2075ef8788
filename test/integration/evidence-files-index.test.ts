import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicUlids, newUlid } from '../../lib/domain/ids.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, type StoredEvidence } from '../../lib/domain/evidence.js';
import { ddb, tableName, traceDdb } from '../../lib/store/client.js';
import { evidenceItem, readyFilesPage } from '../../lib/store/evidence.js';
import { keys } from '../../lib/store/keys.js';
import { queryCollection } from '../../lib/store/read.js';
import { buildEvidence, buildUploadEvidence } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

const nextId = monotonicUlids();

/** Evidence as controls carry it: uploads and references with a paragraph of text each. */
function evidence(projectId: string, controlId: string, kind: 'upload' | 'text_reference', fileStatus: 'ready' | 'quarantine' = 'ready'): StoredEvidence {
  const placed = { id: nextId(), project_id: projectId, control_id: controlId };
  if (kind === 'text_reference') return buildEvidence({ ...placed, ...metadataOf({ title: 'Quarterly access review', description: 'r'.repeat(1500) }) });
  return buildUploadEvidence({
    ...placed,
    ...metadataOf({ title: 'Quarterly access review', description: 'r'.repeat(200) }),
    file_status: fileStatus,
    file_name: 'review.pdf',
    size: 4096,
    sha256: 'c'.repeat(64),
  });
}

/** A project whose controls each hold `references` references and one upload (the first control's still scanning). */
async function seeded(controls: number, references: number) {
  const projectId = newUlid();
  const controlIds = Array.from({ length: controls }, () => nextId());
  const items = controlIds.flatMap((c, i) => [
    { ...keys.evidenceHead(projectId, c), entity: 'evidence-head', revision: 1, count: references + 1 },
    ...Array.from({ length: references }, () => evidenceItem(evidence(projectId, c, 'text_reference'))),
    evidenceItem(evidence(projectId, c, 'upload', i === 1 ? 'quarantine' : 'ready')),
  ]);
  for (let i = 0; i < items.length; i += 25) {
    await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
  return { projectId, controlIds };
}

const rcuOf = (calls: { rcu: number }[]) => calls.reduce((n, c) => n + c.rcu, 0);

describe('readyFilesPage', () => {
  it("pages the ready files of the other controls from the file index, reading a fraction of the project's evidence", async () => {
    const { projectId, controlIds } = await seeded(60, 3);
    const page = await traceDdb(() => readyFilesPage(projectId, controlIds[0]!, { number: 1, size: 50 }));
    expect(page.result.items.map((e) => e.control_id)).toEqual(controlIds.slice(2, 52));
    expect(page.result.hasMore).toBe(true);
    const everything = await traceDdb(() => queryCollection({ PK: keys.project(projectId).PK, prefix: 'EVIDENCE#' }));
    expect(everything.result).toHaveLength(60 * 5);
    expect(rcuOf(page.calls)).toBeLessThan(rcuOf(everything.calls) / 10);
  });

  it('reads the files before a deep page, and says when none follow', async () => {
    const { projectId, controlIds } = await seeded(60, 0);
    const last = await readyFilesPage(projectId, controlIds[0]!, { number: 2, size: 50 });
    expect(last.items.map((e) => e.control_id)).toEqual(controlIds.slice(52));
    expect(last.hasMore).toBe(false);
  });
});
