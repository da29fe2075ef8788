import { EvidenceView, evidenceUrl, MAX_EVIDENCE_PER_CONTROL, type EvidenceMetadata, type StoredEvidence } from '../../domain/evidence.js';
import { titleFrom, UploadFields } from '../../domain/evidence-files.js';
import type { Permission } from '../../domain/permissions.js';
import { notFound } from '../../errors.js';
import { acceptUpload, type IncomingFile } from '../../files/accept.js';
import { consumeSessionWrite } from '../../files/sessions.js';
import { evidenceCreateWrites, evidenceLimitReached } from '../../store/evidence.js';
import { keys } from '../../store/keys.js';
import type { WriteItem } from '../../store/transact.js';
import { toControl } from '../../store/control-entity.js';
import { NoQuery } from '../kernel/common.js';
import { ControlParams, controlPrefetch } from '../controls/access.js';
import {
  EVIDENCE_AUTHORITY,
  EVIDENCE_PATH,
  type EvidenceContext,
  evidenceCollections,
  evidenceContextOf,
  evidencePrefetch,
  evidenceResult,
  evidenceStillEditable,
  newEvidence,
  requireEvidenceEditable,
} from './access.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { boundProjectOf } from '../projects/access.js';
import { formFile, uploadBody, uploadDescription, uploadSessionOperation } from '../kernel/upload-form.js';

/*
 * Uploaded evidence: a new item whose file goes through the scan pipeline (the item is the
 * upload's owner, so the scan mirrors the file's status into it and moves the control's evidence
 * revision), and the upload session for files too large to send inline.
 */

/** What the scan worker checks again before it releases the file (seed, Authentication part 5). */
const UPLOADER_NEEDS: Permission[] = ['edit-control-implementation', 'view-controls'];

/**
 * A new upload item of the control with the form's file (inline or from this caller's session in
 * this project), taken into the scan pipeline: the item, and the writes of its upload record and
 * session for the caller's transaction. A released file of the same uploader, name and bytes in
 * this project is reused (seed, Limits), and the item is ready at once.
 */
export async function evidenceUpload(
  ctx: OperationContext,
  { project, control }: Pick<EvidenceContext, 'project' | 'control'>,
  form: { file?: IncomingFile; upload_session?: string },
  metadata: Partial<EvidenceMetadata>,
  rest: Partial<StoredEvidence> = {},
): Promise<{ item: StoredEvidence & { upload_id: string }; writes: WriteItem[] }> {
  const scope = { organisationId: project.organisation_id, projectId: project.id };
  const { file, session } = await formFile(ctx, form, 'evidence', scope);
  const params = { project: project.id, control: control.id };
  const item = newEvidence(ctx, params, 'upload', { ...metadata, title: metadata.title ?? titleFrom(file.file_name) }, rest);
  const { upload, writes } = await acceptUpload({
    profile: 'evidence',
    owner: keys.evidence(project.id, control.id, item.id),
    organisationId: project.organisation_id,
    projectId: project.id,
    userId: ctx.caller.userId,
    tokenId: ctx.caller.tokenId,
    authority: { scope: { kind: 'project', id: project.id }, permissions: UPLOADER_NEEDS },
    file,
    ...(session ? { session } : {}),
    now: ctx.now,
  });
  const withFile = {
    ...item,
    upload_id: upload.id,
    file_status: upload.status,
    error_code: null,
    file_name: upload.file_name,
    size: upload.size,
    sha256: upload.sha256,
    detected_type: upload.detected_type,
    s3_key: upload.s3_key,
  };
  return { item: withFile, writes: [...writes, ...(session ? [consumeSessionWrite(session.id)] : [])] };
}

export const uploadEvidence = operation({
  id: 'uploadEvidence',
  method: 'POST',
  path: `${EVIDENCE_PATH}/uploads`,
  summary: 'Upload a file as evidence of a control: 201 means the item exists, pending until its scan makes it ready or error; poll the item.',
  description: `${uploadDescription('evidence')} Metadata fields go beside the file (title defaults to the file name). Not idempotent and keeps no receipt (seed, Evidence rule 1): after a lost response read the control's evidence before retrying. A released file with the same bytes, name and uploader in this project is reused at once (ready). Needs an editable project and the control in a state that takes implementation edits (403).`,
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  success: 201,
  params: ControlParams,
  query: NoQuery,
  body: uploadBody('evidence file', UploadFields),
  response: EvidenceView,
  etag: true,
  uses: { files: true },
  sideEffects: ['Stores the file in quarantine and queues its scan', 'Creates an evidence item of the control', 'Writes an audit record'],
  prefetch: evidencePrefetch,
  prefetchCollections: evidenceCollections,
  handle: async (ctx, { params, body }) => {
    const found = evidenceContextOf(ctx, params);
    requireEvidenceEditable(found);
    // Checked again by the write; refused here before the file is stored and its scan queued.
    if (found.evidence.count >= MAX_EVIDENCE_PER_CONTROL) throw evidenceLimitReached();
    const { file, upload_session, ...metadata } = body;
    const { item, writes } = await evidenceUpload(ctx, found, { file, upload_session }, metadata);
    return {
      ...evidenceResult(item),
      location: evidenceUrl(item),
      auditTarget: { ...params, evidence: item.id, upload: item.upload_id },
      writes: [...writes, ...evidenceCreateWrites(item), ...evidenceStillEditable(found)],
    };
  },
});

export const createEvidenceUploadSession = uploadSessionOperation({
  id: 'createEvidenceUploadSession',
  group: 'evidence',
  path: `${EVIDENCE_PATH}/upload-sessions`,
  params: ControlParams,
  profile: 'evidence',
  what: 'file of evidence (for an upload or a replacement in this project)',
  takenBy: 'uploadEvidence or replaceEvidence',
  refusals:
    'Needs an editable project and the control in a state that takes implementation edits (403). The session is bound to the project of the credential.',
  credential: ['project'],
  permission: EVIDENCE_AUTHORITY,
  prefetch: controlPrefetch,
  target: (ctx, params) => {
    const project = boundProjectOf(ctx, params.project);
    const control = ctx.prefetched(keys.control(params.project, params.control));
    if (!control) throw notFound();
    requireEvidenceEditable({ project, control: toControl(control) });
    return { organisationId: project.organisation_id, projectId: project.id };
  },
});

export const evidenceUploadOperations = [uploadEvidence, createEvidenceUploadSession];
