import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { issueToken } from '../../lib/auth/issue.js';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import type { ImportKind } from '../../lib/domain/imports/run.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { type ArtefactSource, importAssertions } from '../../lib/jobs/imports.js';
import { assertionWrites, releaseAssertions, releasesAsserting } from '../../lib/store/assertions.js';
import { traceDdb } from '../../lib/store/client.js';
import { createUser, grantAccess, revokeAccess } from '../../lib/store/identity.js';
import { importRun } from '../../lib/store/imports.js';
import { commit } from '../../lib/store/transact.js';
import { diedAt, interceptAws, nth } from '../support/aws-faults.js';
import { assertionDocument, formatEntry, jsonBytes } from '../support/assertion-documents.js';
import { ismRelease } from '../support/document-model.js';
import { csvBytes, HEADER, matrixRow, titledMatrix, volumeMatrix, xlsxBytes } from '../support/matrices.js';
import { importStarter, releaseAsStored, startedImportRun, storedAssertion } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

let ism: Release;
let starter: { userId: string; tokenId: string };

beforeAll(async () => {
  await useTestServices();
  ism = await importRelease(ismRelease(), { sample: false }, new Date());
  starter = await importStarter();
}, 120_000);

const controls = () =>
  ismRelease()
    .entries.filter((e) => e.kind === 'control')
    .map((e) => e.id);

/** A draft release of a new provider on the test ISM release, and a run started on an artefact of it holding `bytes`. */
async function startedImport(kind: ImportKind, bytes: Uint8Array, options: { status?: 'draft' | 'published'; by?: typeof starter } = {}) {
  const { release, run } = await startedImportRun(ism.id, options.by ?? starter, { kind, status: options.status });
  const source = async (): Promise<ArtefactSource> => ({ ...run, bytes: async () => bytes });
  const message = { provider_id: run.provider_id, artefact_id: run.artefact_id, run_id: run.run_id };
  return { run, release, message, source };
}

describe('the import job', () => {
  it('writes one pending assertion per readable row, reporting the others by row number', async () => {
    const [a, b] = controls();
    const { message, source, run } = await startedImport(
      'ccm',
      csvBytes(titledMatrix([matrixRow(a!, 'Provider'), matrixRow('Appendix', 'Provider'), matrixRow(b!, 'Consumer'), matrixRow(a!, 'Shared')])),
    );
    await importAssertions(message, source, new Date());
    const stored = await releaseAssertions(run.provider_id, run.release_id);
    expect([...stored.values()].map((s) => [s.control_id, s.row, s.status, s.responsibility])).toEqual([
      [a, 4, 'pending', 'provider'],
      [b, 6, 'pending', 'consumer'],
    ]);
  });

  it('records the row errors, progress and outcome on the run', async () => {
    const [a] = controls();
    const { message, source, run } = await startedImport(
      'ccm',
      csvBytes(titledMatrix([matrixRow(a!, 'Provider'), matrixRow('Appendix', 'Provider'), matrixRow(a!, 'Shared')])),
    );
    await importAssertions(message, source, new Date());
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({
      status: 'completed',
      progress: { rows: 1, written: 1, exact: 1 },
      error_count: 2,
      errors: [
        { row: 5, reason: 'control_id: "Appendix" is not an ISM control identifier' },
        { row: 6, reason: `duplicate of row 4 for ${a}` },
      ],
    });
  });

  it('marks an assertion about a control the ISM release lacks as needing review', async () => {
    const { message, source, run } = await startedImport('structured', jsonBytes(assertionDocument([formatEntry('ISM-0001')])));
    await importAssertions(message, source, new Date());
    const stored = await releaseAssertions(run.provider_id, run.release_id);
    expect(stored.get('ism-0001')).toMatchObject({ exact: false, review_reason: 'unknown_control' });
  });

  it('names the installed ISM release that has a control the artefact’s release lacks', async () => {
    const older = ismRelease().entries.find((e) => e.kind === 'control')!;
    await importRelease(
      { version: '2024.06.1', title: 'An older release', published: null, entries: [{ ...older, id: 'ism-95000', label: 'ISM-95000' }] },
      { sample: true },
      new Date(),
    );
    const { message, source, run } = await startedImport('structured', jsonBytes(assertionDocument([formatEntry('ISM-95000')])));
    await importAssertions(message, source, new Date());
    expect((await releaseAssertions(run.provider_id, run.release_id)).get('ism-95000')).toMatchObject({
      exact: false,
      review_reason: 'other_ism_release',
      review_detail: 'ism-95000 is not in ISM 2025.12.9; it is in ISM 2024.06.1',
    });
  });

  it('reads formula cells of a workbook from their cached results', async () => {
    const [a] = controls();
    const row = matrixRow(a!, 'Provider');
    row[1] = { formula: 'B1', result: 'Shared' };
    const { message, source, run } = await startedImport('ccm', await xlsxBytes([HEADER, row]));
    await importAssertions(message, source, new Date());
    expect((await releaseAssertions(run.provider_id, run.release_id)).get(a!)?.responsibility).toBe('shared');
  });

  it('counts the written assertions on the release', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes(volumeMatrix(controls().slice(0, 30))));
    await importAssertions(message, source, new Date());
    expect((await releaseAsStored(run.provider_id, run.release_id)).assertions).toBe(30);
  });

  it('writes 1,100 rows in transactions of at most 100 items', async () => {
    const ids = [...controls(), ...Array.from({ length: 1100 - controls().length }, (_, i) => `ism-${90_000 + i}`)];
    const { message, source, run } = await startedImport('ccm', csvBytes(volumeMatrix(ids)));
    const { calls } = await traceDdb(() => importAssertions(message, source, new Date()));
    expect([calls.filter((c) => c.command === 'TransactWriteItems').length, (await releaseAssertions(run.provider_id, run.release_id)).size]).toEqual([
      12, 1100,
    ]);
  });

  it('finishes on redelivery the rows a crashed delivery left unwritten', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes(volumeMatrix(controls().slice(0, 250))));
    // The worker dies during its second batch: that transaction never returns and nothing after it runs.
    await diedAt(
      () => importAssertions(message, source, new Date()),
      nth(2, (request) => request.command === 'TransactWriteItems'),
    );
    await importAssertions(message, source, new Date(Date.now() + 3_600_000));
    expect((await releaseAsStored(run.provider_id, run.release_id)).assertions).toBe(250);
  });

  it('replaces a confirmed assertion of the same control as pending and takes it out of the control index', async () => {
    const [a] = controls();
    const { message, source, run, release } = await startedImport('ccm', csvBytes([HEADER, matrixRow(a!, 'Provider')]));
    await storedAssertion(release, a!, 'confirmed');
    await importAssertions(message, source, new Date());
    expect([
      (await releaseAssertions(run.provider_id, run.release_id)).get(a!)?.status,
      (await releasesAsserting(a!)).some((r) => r.release_id === release.id),
    ]).toEqual(['pending', false]);
  });

  it('rewrites a batch after a review landed between reading and writing it', async () => {
    const [a] = controls();
    const { message, source, run, release } = await startedImport('ccm', csvBytes([HEADER, matrixRow(a!, 'Shared')]));
    const before = await storedAssertion(release, a!, 'pending');
    let reviewed = false;
    const stop = await interceptAws(async (request, send) => {
      const items = request.command === 'TransactWriteItems' ? (request.input.TransactItems as { Put?: { Item: Record<string, unknown> } }[]) : [];
      if (!reviewed && items.some((i) => i.Put?.Item.entity === 'assertion' && i.Put.Item.artefact_id === run.artefact_id)) {
        reviewed = true;
        await commit(assertionWrites({ ...before, status: 'confirmed', version: before.version + 1 }, before));
      }
      return send();
    });
    try {
      await importAssertions(message, source, new Date());
    } finally {
      stop();
    }
    expect((await releaseAssertions(run.provider_id, run.release_id)).get(a!)).toMatchObject({
      status: 'pending',
      responsibility: 'shared',
      version: before.version + 2,
    });
  });

  it('fails without writing when the release is published', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes([HEADER, matrixRow(controls()[0]!, 'Provider')]), { status: 'published' });
    await importAssertions(message, source, new Date());
    expect([(await importRun(run.provider_id, run.artefact_id))?.error_code, (await releaseAssertions(run.provider_id, run.release_id)).size]).toEqual([
      'release_not_draft',
      0,
    ]);
  });

  it('fails with the reason when the file is not a matrix', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes([['Title only']]));
    await importAssertions(message, source, new Date());
    expect((await importRun(run.provider_id, run.artefact_id))?.error_code).toBe('no_header_row');
  });

  it('stops before writing when its starter lost the access', async () => {
    const user = await createUser({ email: `${newUlid().toLowerCase()}@test.invalid`, name: 'Leaver', superUser: false }, new Date());
    await grantAccess(user.id, { kind: 'installation' }, permissionsOf('administration'), new Date());
    const token = await issueToken(
      user.id,
      { token_type: 'administration', name: 't', abilities: permissionsOf('administration'), read_only: false },
      new Date(),
    );
    const { message, source, run } = await startedImport('ccm', csvBytes([HEADER, matrixRow(controls()[0]!, 'Provider')]), {
      by: { userId: user.id, tokenId: token.id },
    });
    await revokeAccess(user.id, { kind: 'installation' }, new Date());
    await importAssertions(message, source, new Date());
    expect([(await importRun(run.provider_id, run.artefact_id))?.error_code, (await releaseAssertions(run.provider_id, run.release_id)).size]).toEqual([
      'authorisation_lost',
      0,
    ]);
  });

  it('fails when the artefact now names another ISM release than the run was started for', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes([HEADER, matrixRow(controls()[0]!, 'Provider')]));
    await importAssertions(message, async () => ({ ...(await source()), ism_version_id: newUlid() }), new Date());
    expect((await importRun(run.provider_id, run.artefact_id))?.error_code).toBe('artefact_changed');
  });

  it('leaves a run that has ended alone on redelivery', async () => {
    const { message, source, run } = await startedImport('ccm', csvBytes([HEADER, matrixRow(controls()[0]!, 'Provider')]));
    await importAssertions(message, source, new Date());
    const ended = await importRun(run.provider_id, run.artefact_id);
    await importAssertions(message, source, new Date(Date.now() + 3_600_000));
    expect(await importRun(run.provider_id, run.artefact_id)).toEqual(ended);
  });
});
