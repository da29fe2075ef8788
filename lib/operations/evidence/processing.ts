import * as z from 'zod';
import { EvidenceView, evidenceUrl, metadataOf, statusOf, type StoredEvidence } from '../../domain/evidence.js';
import { ReplacementFields } from '../../domain/evidence-files.js';
import { conflict } from '../../errors.js';
import { cancelUploadWrite } from '../../files/uploads.js';
import { deleteObject } from '../../files/storage.js';
import { evidenceReplaceWrites, evidenceSwapWrites } from '../../store/evidence.js';
import { NoQuery } from '../kernel/common.js';
import {
  EVIDENCE_AUTHORITY,
  EVIDENCE_PATH,
  EvidenceParams,
  evidenceCollections,
  evidenceOf,
  evidencePrefetch,
  evidenceResult,
  evidenceStillEditable,
  requireEvidenceEditable,
} from './access.js';
import { evidenceUpload } from './uploads.js';
import { operation } from './declare.js';
import { uploadBody, uploadDescription } from '../kernel/upload-form.js';
import { requireIfMatch } from '../kernel/etag.js';
import { evidenceEtag } from '../controls/access.js';
import { once } from '../../domain/validation.js';

/*
 * The file of an uploaded item, changed: replaced by a new file (a new item; the old one retires)
 * or its processing cancelled. Both answer a state that does not allow them with 409, before the
 * If-Match is judged: a request that fails whatever the ETag says is not a stale one (RFC 9110
 * section 13.2.1), and a client that polled a pending item learns why at once.
 */

const EDITABLE_NOTE = 'Needs an editable project and the control in a state that takes implementation edits (403).';

const notProcessing = () => conflict('evidence_not_processing', 'Only an uploaded file still being processed can be cancelled; read the item.');

export const replaceEvidence = operation({
  id: 'replaceEvidence',
  method: 'POST',
  path: `${EVIDENCE_PATH}/{evidence}/replacement`,
  summary: 'Replace the file of uploaded evidence (If-Match the item ETag): 202 with the new pending item; the old item retires at once.',
  description: `${uploadDescription('evidence')} The new item keeps the metadata and takes description when sent (blank clears it); its replaces names the old item. No receipt: a retry on the retired item is 404, so after a lost response read the control's evidence and find the item whose replaces names it. 409 evidence_not_a_file for items other than uploads, evidence_processing while the file is still being processed. Poll the new item (getEvidence) until ready or error. ${EDITABLE_NOTE}`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 202,
  params: EvidenceParams,
  query: NoQuery,
  body: uploadBody('replacement file', ReplacementFields),
  response: EvidenceView,
  etag: true,
  ifMatch: true,
  errors: [409],
  uses: { files: true },
  sideEffects: [
    'Stores the file in quarantine and queues its scan',
    'Creates the replacing evidence item',
    'Deletes the replaced item',
    'Writes an audit record',
  ],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, body }) => {
    const found = evidenceOf(ctx, params);
    const old = found.item;
    if (old.kind !== 'upload') throw conflict('evidence_not_a_file', 'Only uploaded evidence has a file to replace.');
    if (statusOf(old) === 'pending') throw conflict('evidence_processing', 'The file is still being processed: wait for it, or cancel its processing first.');
    requireIfMatch(ctx.ifMatch, evidenceEtag(old));
    requireEvidenceEditable(found);
    const { file, upload_session, description } = body;
    const metadata = { ...metadataOf(old), ...(description === undefined ? {} : { description }) };
    const { item, writes } = await evidenceUpload(ctx, found, { file, upload_session }, metadata, { replaces: old.id });
    return {
      ...evidenceResult(item),
      location: evidenceUrl(item),
      auditTarget: { ...params, replacement: item.id, upload: item.upload_id },
      writes: [...writes, ...evidenceSwapWrites(old, old.version, item), ...evidenceStillEditable(found)],
    };
  },
});

const Cancelled = once(() => z.object({ id: z.string(), cancelled: z.literal(true) }).meta({ id: 'EvidenceProcessingCancelled' }));

export const cancelEvidenceProcessing = operation({
  id: 'cancelEvidenceProcessing',
  method: 'POST',
  path: `${EVIDENCE_PATH}/{evidence}/cancel-processing`,
  summary: 'Stop the scan of an uploaded file still being processed (JSON {}, If-Match the item ETag): 200 {id, cancelled: true}.',
  description: `The item stays, as a failed upload (status error, error cancelled): replace its file or delete it. Its quarantined file is deleted and a scan still queued does nothing. 409 evidence_not_processing when the item is not an upload or its file is no longer being processed (a scan that finished first wins). ${EDITABLE_NOTE}`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 200,
  params: EvidenceParams,
  query: NoQuery,
  body: { schema: () => z.strictObject({}), mediaType: 'application/json' },
  response: Cancelled,
  ifMatch: true,
  errors: [409],
  uses: { files: true },
  sideEffects: ['Stops the processing of the file and deletes it', 'Marks the evidence item failed (cancelled)', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params }) => {
    const found = evidenceOf(ctx, params);
    const item = found.item;
    if (item.kind !== 'upload' || !item.upload_id || statusOf(item) !== 'pending') throw notProcessing();
    requireIfMatch(ctx.ifMatch, evidenceEtag(item));
    requireEvidenceEditable(found);
    const next: StoredEvidence = {
      ...item,
      file_status: 'error',
      error_code: 'cancelled',
      version: item.version + 1,
      updated_at: ctx.now.toISOString(),
      updated_by: ctx.caller.userId,
    };
    const quarantined = String(item.s3_key);
    return {
      data: { id: item.id, cancelled: true as const },
      auditTarget: { ...params, upload: item.upload_id },
      // The upload first: a scan that settled it meanwhile is reported as such, not as a stale item.
      writes: [cancelUploadWrite(item.upload_id, ctx.now, notProcessing), ...evidenceReplaceWrites(next, item.version), ...evidenceStillEditable(found)],
      afterCommit: () => deleteObject(quarantined),
    };
  },
});

export const evidenceProcessingOperations = [replaceEvidence, cancelEvidenceProcessing];
