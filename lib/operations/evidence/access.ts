import type * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import type { StoredControl } from '../../domain/controls.js';
import { evidenceView, metadataErrors, metadataOf, type EvidenceKind, type EvidenceMetadata, type StoredEvidence } from '../../domain/evidence.js';
import type { StoredProject } from '../../domain/projects.js';
import { forbidden, notFound, validationFailed } from '../../errors.js';
import type { ControlEvidence } from '../../store/evidence.js';
import { controlStillInState } from '../../store/guards.js';
import type { WriteItem } from '../../store/transact.js';
import { Ulid } from '../kernel/common.js';
import {
  BASE,
  ControlParams,
  controlCollections,
  controlOf,
  controlPrefetch,
  editabilityProblem,
  evidenceEtag,
  projectStillAllows,
  stateAllows,
} from '../controls/access.js';
import type { OperationContext } from '../kernel/operation.js';
import { once } from '../../domain/validation.js';

/**
 * What every evidence operation shares: the control, its project and its evidence from the one
 * authentication round trip (the control's evidence collection is queried beside it), the item's
 * own ETag, and the editability every evidence change needs (seed: an editable project and the
 * control in a state that takes implementation edits, checked again by the write's transaction).
 */
export const EVIDENCE_PATH = `${BASE}/{control}/evidence`;
export const EvidenceParams = once(() => ControlParams().extend({ evidence: Ulid }));
export type EvidenceParams = z.output<ReturnType<typeof EvidenceParams>>;
export const evidencePrefetch = controlPrefetch;
export const evidenceCollections = controlCollections;
export const EVIDENCE_AUTHORITY = { project: [['edit-control-implementation', 'view-controls']] } as const satisfies Record<string, string[][]>;

export interface EvidenceContext {
  project: StoredProject;
  control: StoredControl;
  evidence: ControlEvidence;
}

export const evidenceContextOf = (ctx: OperationContext, params: ControlParams): EvidenceContext => controlOf(ctx, params);

/** The item, when it belongs to this control of this project; a retired (replaced or deleted) item is 404. */
export function evidenceOf(ctx: OperationContext, params: EvidenceParams): EvidenceContext & { item: StoredEvidence } {
  const found = evidenceContextOf(ctx, params);
  const item = found.evidence.items.find((e) => e.id === params.evidence);
  if (!item) throw notFound();
  return { ...found, item };
}

/** Evidence changes are implementation edits: an editable project and a control whose state takes them (403). */
export function requireEvidenceEditable({ project, control }: Pick<EvidenceContext, 'project' | 'control'>): void {
  const problem = editabilityProblem(project);
  if (problem) throw problem;
  if (!stateAllows(control, 'implementation')) {
    throw forbidden('workflow_state_forbids_edit', `The control is in ${control.workflow_state}, which does not allow evidence changes.`);
  }
}

/** The same editability as a condition of the write: the project still editable, the control still in the state read. */
export function evidenceStillEditable({ project, control }: Pick<EvidenceContext, 'project' | 'control'>): WriteItem[] {
  return [
    projectStillAllows(project),
    controlStillInState(project.id, control.id, control.workflow_state, (current) =>
      current ? forbidden('workflow_state_forbids_edit', 'The control left the state that takes evidence changes; read it again.') : notFound(),
    ),
  ];
}

/** A new item of this control, attributed to the caller, with its metadata checked as a whole. */
export function newEvidence(
  ctx: OperationContext,
  params: ControlParams,
  kind: EvidenceKind,
  metadata: Partial<EvidenceMetadata> & { title: string },
  rest: Partial<StoredEvidence> = {},
): StoredEvidence {
  const complete = metadataOf(metadata);
  const errors = metadataErrors(complete, kind);
  if (errors.length) throw validationFailed(errors);
  const at = ctx.now.toISOString();
  return {
    id: newUlid(ctx.now.getTime()),
    project_id: params.project,
    control_id: params.control,
    kind,
    ...complete,
    status: 'ready',
    version: 1,
    source: null,
    created_at: at,
    created_by: ctx.caller.userId,
    updated_at: at,
    updated_by: ctx.caller.userId,
    ...rest,
  };
}

export const evidenceResult = (e: StoredEvidence) => ({ data: evidenceView(e, evidenceEtag(e)), etag: evidenceEtag(e) });
