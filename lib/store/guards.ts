import { and, attributeAfter, attributeEquals, type Condition, containsAll, itemAbsent, itemPresent, memberEquals, versionIs } from './conditions.js';
import type { StoredEvidence } from '../domain/evidence.js';
import { toEvidence } from './evidence.js';
import { keys, type Key } from './keys.js';
import type { OnConditionFailed, WriteItem } from './transact.js';

/**
 * Cross-entity guards: facts about an item other than the one a write changes that must still
 * hold when the write lands, as checks in the write's transaction. Named here, so that operations
 * and jobs say which fact they rely on and never how the item stores it. What a failure means is
 * the caller's (a 403, a 404 or a lost race), decided from the item as it is now (ALL_OLD).
 */
const check = (key: Key, condition: Condition, onConditionFailed: OnConditionFailed): WriteItem => ({ kind: 'check', key, condition, onConditionFailed });

/** The project not archived: what "still editable" means for its setup, registers, tasks, library and documents. */
export const projectNotArchived = (projectId: string, onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.project(projectId), attributeEquals('archived', false), onConditionFailed);

/** A control workflow setting of the project, as a transition that depends on it read it. */
export interface WorkflowSettingAsRead {
  setting: string;
  is: boolean;
  /** The value is the setting's default, which a project that never wrote the setting holds. */
  isDefault: boolean;
}

/**
 * The project active and not archived, so that its controls and evidence take edits, and, for a
 * transition that depends on a workflow setting, that setting as read.
 */
export function projectControlsEditable(projectId: string, setting: WorkflowSettingAsRead | undefined, onConditionFailed: OnConditionFailed): WriteItem {
  const settingAsRead = setting ? [memberEquals(['control_workflow', setting.setting], setting.is, setting.isDefault)] : [];
  return check(
    keys.project(projectId),
    and(attributeEquals('lifecycle_state', 'active'), attributeEquals('archived', false), ...settingAsRead),
    onConditionFailed,
  );
}

/** A versioned item still at the version read, where version 0 stands for never written (still absent). */
export const itemUnchanged = (key: Key, version: number, onConditionFailed: OnConditionFailed): WriteItem =>
  check(key, version === 0 ? itemAbsent() : versionIs(version), onConditionFailed);

/** The control still in the workflow state read. */
export const controlStillInState = (projectId: string, controlId: string, state: string, onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.control(projectId, controlId), attributeEquals('workflow_state', state), onConditionFailed);

/**
 * An evidence item still a ready upload of the file read (a replaced file has another upload). A
 * refusal is decided from the evidence item as it is now, read with its schema; undefined when gone.
 */
export function fileStillReady(
  file: { project_id: string; control_id: string; id: string; upload_id: string },
  onConditionFailed: (current: StoredEvidence | undefined) => Error,
): WriteItem {
  const key = keys.evidence(file.project_id, file.control_id, file.id);
  return check(key, and(attributeEquals('kind', 'upload'), attributeEquals('file_status', 'ready'), attributeEquals('upload_id', file.upload_id)), (current) =>
    onConditionFailed(current && toEvidence({ ...key, ...current })),
  );
}

/** The credential still issued, unexpired at `now`, and selecting every one of the abilities. */
export const tokenStillGrants = (tokenId: string, now: Date, abilities: readonly string[], onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.token(tokenId), and(itemPresent(), attributeAfter('expires_at', now.toISOString()), containsAll('abilities', abilities)), onConditionFailed);

/** The user still active. */
export const userStillActive = (userId: string, onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.user(userId), attributeEquals('status', 'active'), onConditionFailed);

/** The user's access to the project still holding every one of the permissions. */
export const projectAccessStillHolds = (userId: string, projectId: string, permissions: readonly string[], onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.projectAccess(userId, projectId), containsAll('permissions', permissions), onConditionFailed);

/**
 * An assurance release still a draft, and, given `ismVersionId`, still for that ISM release: the
 * condition of a write to the release itself (its counts), which `releaseStillDraft` checks alone.
 */
export const releaseIsDraft = (ismVersionId?: string): Condition =>
  ismVersionId === undefined ? attributeEquals('status', 'draft') : and(attributeEquals('status', 'draft'), attributeEquals('ism_version_id', ismVersionId));

export const releaseStillDraft = (providerId: string, releaseId: string, onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.assuranceRelease(providerId, releaseId), releaseIsDraft(), onConditionFailed);

/** No upload record yet: a verdict that arrives first is kept for the upload's own scan to find. */
export const uploadNotRecorded = (uploadId: string, onConditionFailed: OnConditionFailed): WriteItem =>
  check(keys.upload(uploadId), itemAbsent(), onConditionFailed);
