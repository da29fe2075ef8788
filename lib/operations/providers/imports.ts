import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { type ImportKind, type ImportRun, importRunView, newImportRun } from '../../domain/imports/run.js';
import { ArtefactDetail, artefactView, type StoredArtefact } from '../../domain/provider-artefacts.js';
import { conflict, validationFailed } from '../../errors.js';
import { releaseStillDraft } from '../../store/guards.js';
import { startImportWrites } from '../../store/imports.js';
import { keys } from '../../store/keys.js';
import { touchArtefactWrite } from '../../store/provider-artefacts.js';
import { toRelease } from '../../store/providers.js';
import { getOne } from '../../store/read.js';
import { NoQuery } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { releasePublished, requireDraft } from './access.js';
import { ARTEFACT_PATH, ArtefactParams, artefactEtag, artefactImportPrefetch, artefactOf, HIERARCHY, importRunOf } from './artefact-access.js';
import { requireIfMatch } from '../kernel/etag.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** The detected types each import reads: a matrix is a workbook or CSV, a structured document JSON. */
const READABLE: Record<ImportKind, readonly string[]> = { ccm: [XLSX, 'text/csv'], structured: ['application/json'] };

/** Artefact detail: the artefact and its current import run. */
export const artefactDetail = (a: StoredArtefact, run: ImportRun | undefined): ArtefactDetail => ({
  ...artefactView(a),
  import: run ? importRunView(run) : null,
});

/**
 * What an import may start from: a ready file of the right detected type, in a draft release,
 * naming that release's ISM release (exactness is judged against it, and the job's writes are
 * conditional on it). Refusals that no ETag could cure come before If-Match.
 */
async function importable(ctx: OperationContext, artefact: StoredArtefact, kind: ImportKind) {
  if (artefact.kind === 'link') throw conflict('artefact_not_file', 'A link is stored only; import a file artefact.');
  if (artefact.file_status !== 'ready') throw conflict('file_not_ready', 'The artefact\u2019s file is not ready; poll the artefact until its status is ready.');
  if (!READABLE[kind].includes(artefact.detected_type ?? '')) {
    const expected = kind === 'ccm' ? 'an XLSX or CSV matrix' : 'a JSON document (OSCAL component definition or the ism-assertions format)';
    throw validationFailed([{ pointer: '/artefact', code: 'unsupported_artefact_type', detail: `the artefact is ${artefact.detected_type}, not ${expected}` }]);
  }
  if (!artefact.release_id)
    throw conflict('artefact_not_in_release', 'Only an artefact of an assurance release can be imported: its assertions belong to the release.');
  const item = await getOne(keys.assuranceRelease(artefact.provider_id, artefact.release_id));
  if (!item) throw conflict('artefact_not_in_release', 'The artefact\u2019s assurance release no longer exists.');
  const release = toRelease(item);
  requireDraft(release);
  if (!artefact.ism_version_id || artefact.ism_version_id !== release.ism_version_id) {
    throw conflict('ism_release_mismatch', 'The artefact must name its release\u2019s ISM release: exactness is judged against it.');
  }
  const current = importRunOf(ctx, { provider: artefact.provider_id, artefact: artefact.id });
  if (current?.status === 'running') throw conflict('import_running', 'An import of this artefact is running; poll the artefact until it ends.');
  requireIfMatch(ctx.ifMatch, artefactEtag(artefact, current));
  return { release, current };
}

function startImport(kind: ImportKind) {
  const ccm = kind === 'ccm';
  return operation({
    id: ccm ? 'useArtefactAsCcm' : 'importArtefact',
    method: 'POST',
    path: `${ARTEFACT_PATH}/${ccm ? 'use-as-ccm' : 'import'}`,
    summary: ccm
      ? 'Read the artefact as the provider\u2019s Cloud Controls Matrix (XLSX or CSV) into its release\u2019s assertions (202; poll artefact detail).'
      : 'Import a structured artefact (an OSCAL component definition or the ism-assertions JSON format) into its release\u2019s assertions (202; poll artefact detail).',
    description:
      'Send an empty JSON object with If-Match the artefact ETag. The artefact must be a ready file of a draft release naming the release\u2019s ISM release (409 artefact_not_file, file_not_ready, artefact_not_in_release, ism_release_mismatch, release_published); a file of another type is 422 unsupported_artefact_type; while an import of it runs, 409 import_running. Rows that cannot be read are reported in the artefact\u2019s import with their row numbers; the rest import as pending assertions. The 202\u2019s ETag names the run as started: the artefact ETag moves with every change of the run artefact detail shows, so read detail again once the run has ended before confirm-exact.',
    credential: ['administration'],
    permission: HIERARCHY,
    success: 202,
    params: ArtefactParams,
    query: NoQuery,
    body: { schema: () => z.strictObject({}).meta({ id: 'StartImport' }), mediaType: 'application/json' },
    response: ArtefactDetail,
    etag: true,
    ifMatch: true,
    errors: [409],
    sideEffects: ['Starts an import run of the artefact and queues the import job', 'Writes an audit record'],
    prefetch: artefactImportPrefetch,
    handle: async (ctx, { params }) => {
      const artefact = artefactOf(ctx, params);
      const { release, current } = await importable(ctx, artefact, kind);
      const at = ctx.now.toISOString();
      const run = newImportRun({
        run_id: newUlid(ctx.now.getTime()),
        provider_id: artefact.provider_id,
        release_id: release.id,
        artefact_id: artefact.id,
        ism_version_id: release.ism_version_id,
        kind,
        started_by: ctx.caller.userId,
        token_id: ctx.caller.tokenId,
        now: ctx.now,
      });
      const next = { ...artefact, version: artefact.version + 1, updated_at: at };
      return {
        data: artefactDetail(next, run),
        etag: artefactEtag(next, run),
        auditTarget: { provider: params.provider, artefact: artefact.id, release: release.id, run: run.run_id },
        auditDetails: { kind },
        writes: [
          touchArtefactWrite(artefact, at),
          { ...startImportWrites(run, current), onConditionFailed: () => conflict('import_running', 'An import of this artefact started meanwhile.') },
          releaseStillDraft(release.provider_id, release.id, releasePublished),
        ],
      };
    },
  });
}

export const importArtefact = startImport('structured');
export const useArtefactAsCcm = startImport('ccm');
