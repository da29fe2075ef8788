import * as z from 'zod';
import { CreateEvidenceReference, EvidenceView, metadataErrors, metadataOf, UpdateEvidence, evidenceUrl, type StoredEvidence } from '../../domain/evidence.js';
import { conflict, preconditionFailed, validationFailed } from '../../errors.js';
import { deleteObject } from '../../files/storage.js';
import { cancelUploadWrite } from '../../files/uploads.js';
import { evidenceCreateWrites, evidenceDeleteWrites, evidenceReplaceWrites } from '../../store/evidence.js';
import { NoQuery } from '../kernel/common.js';
import { ControlParams, evidenceEtag } from '../controls/access.js';
import {
  EVIDENCE_AUTHORITY,
  EVIDENCE_PATH,
  EvidenceParams,
  evidenceCollections,
  evidenceContextOf,
  evidenceOf,
  evidencePrefetch,
  evidenceResult,
  evidenceStillEditable,
  newEvidence,
  requireEvidenceEditable,
} from './access.js';
import { operation } from './declare.js';
import { requireIfMatch } from '../kernel/etag.js';
import { once } from '../../domain/validation.js';

/* Evidence items of a control: references, reads, metadata edits and deletion (seed, controls and evidence table). */

const EVIDENCE_ERRORS_NOTE = 'Needs an editable project and the control in a state that takes implementation edits (403).';

export const createEvidenceReference = operation({
  id: 'createEvidenceReference',
  method: 'POST',
  path: `${EVIDENCE_PATH}/references`,
  summary: 'Record an external reference (stored, never fetched) or a text reference as evidence of a control: 201.',
  description: `Not idempotent and keeps no receipt (seed, Evidence rule 1): after a lost response read the control's evidence before retrying. ${EVIDENCE_ERRORS_NOTE}`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 201,
  params: ControlParams,
  query: NoQuery,
  body: { schema: CreateEvidenceReference, mediaType: 'application/json' },
  response: EvidenceView,
  etag: true,
  sideEffects: ['Creates an evidence item of the control', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, body }) => {
    const found = evidenceContextOf(ctx, params);
    requireEvidenceEditable(found);
    const { kind, ...metadata } = body;
    const item = newEvidence(ctx, params, kind, metadata);
    return {
      ...evidenceResult(item),
      location: evidenceUrl(item),
      auditTarget: { ...params, evidence: item.id },
      auditDetails: { kind },
      writes: [...evidenceCreateWrites(item), ...evidenceStillEditable(found)],
    };
  },
});

export const getEvidence = operation({
  id: 'getEvidence',
  method: 'GET',
  path: `${EVIDENCE_PATH}/{evidence}`,
  summary: "An evidence item's stored metadata, status and content links, with its item ETag.",
  description:
    'status is pending while an uploaded file is being scanned, then ready or error (with error, a safe reason code); processing is true meanwhile. Poll this item after uploadEvidence or replaceEvidence. links.content and links.download appear only where the item offers that reading. The item ETag is the one updateEvidence, replaceEvidence, deleteEvidence and cancelEvidenceProcessing name in If-Match.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: EvidenceParams,
  query: NoQuery,
  response: EvidenceView,
  etag: true,
  sideEffects: [],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params }) => evidenceResult(evidenceOf(ctx, params).item),
});

export const updateEvidence = operation({
  id: 'updateEvidence',
  method: 'PATCH',
  path: `${EVIDENCE_PATH}/{evidence}`,
  summary: "Edit an evidence item's metadata (JSON merge patch, If-Match the item ETag).",
  description: `At least one metadata field. Status, verification, sources, provenance, paths and processing fields are not writable (422). ${EVIDENCE_ERRORS_NOTE}`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 200,
  params: EvidenceParams,
  query: NoQuery,
  body: { schema: UpdateEvidence, mediaType: 'application/merge-patch+json' },
  response: EvidenceView,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the evidence item', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, body }) => {
    const found = evidenceOf(ctx, params);
    requireIfMatch(ctx.ifMatch, evidenceEtag(found.item));
    requireEvidenceEditable(found);
    const merged = metadataOf({ ...metadataOf(found.item), ...body, title: body.title ?? found.item.title });
    const errors = metadataErrors(merged, found.item.kind);
    if (errors.length) throw validationFailed(errors);
    const next: StoredEvidence = {
      ...found.item,
      ...merged,
      version: found.item.version + 1,
      updated_at: ctx.now.toISOString(),
      updated_by: ctx.caller.userId,
    };
    return {
      ...evidenceResult(next),
      auditDetails: { changed_fields: Object.keys(body).join(',') },
      writes: [...evidenceReplaceWrites(next, found.item.version), ...evidenceStillEditable(found)],
    };
  },
});

const Deleted = once(() => z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'EvidenceDeleted' }));

export const deleteEvidence = operation({
  id: 'deleteEvidence',
  method: 'DELETE',
  path: `${EVIDENCE_PATH}/{evidence}`,
  summary: 'Delete an evidence item (If-Match the item ETag, no body): 200 {id, deleted: true}.',
  description: `409 while the item's file is still processing and another item needs it. Captured versions stay readable. ${EVIDENCE_ERRORS_NOTE}`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 200,
  params: EvidenceParams,
  query: NoQuery,
  response: Deleted,
  ifMatch: true,
  errors: [409],
  uses: { files: true },
  sideEffects: ['Deletes the evidence item', 'Stops the processing of its file and deletes the quarantined copy', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params }) => {
    const found = evidenceOf(ctx, params);
    requireIfMatch(ctx.ifMatch, evidenceEtag(found.item));
    requireEvidenceEditable(found);
    const sharing = found.evidence.items.filter((e) => e.id !== found.item.id && e.upload_id !== undefined && e.upload_id === found.item.upload_id);
    if (found.item.file_status === 'quarantine' && sharing.length) {
      throw conflict('evidence_file_in_use', 'The file is still processing and another evidence item needs it.', {
        evidence_ids: sharing.map((e) => e.id),
      });
    }
    const item = found.item;
    // A file still processing stops with its item: the scan then finds it settled, and its quarantined copy goes.
    const processing = item.kind === 'upload' && item.upload_id !== undefined && item.file_status === 'quarantine';
    return {
      data: { id: item.id, deleted: true as const },
      writes: [
        ...(processing ? [cancelUploadWrite(item.upload_id!, ctx.now, () => preconditionFailed())] : []),
        ...evidenceDeleteWrites(item, item.version),
        ...evidenceStillEditable(found),
      ],
      ...(processing ? { afterCommit: () => deleteObject(String(item.s3_key)) } : {}),
    };
  },
});

export const evidenceItemOperations = [createEvidenceReference, getEvidence, updateEvidence, deleteEvidence];
