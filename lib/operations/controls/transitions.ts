import { dependenciesOf, type Permission } from '../../domain/permissions.js';
import { Control } from '../../domain/control-views.js';
import { matrixMissing, preparationMissing, TransitionRequest, type StoredControl } from '../../domain/controls.js';
import { captureEvidence, type Capture } from '../../domain/evidence-capture.js';
import { statusOf } from '../../domain/evidence.js';
import type { Gate } from '../../domain/workflow.js';
import { ApiError, conflict, forbidden, unauthorized, validationFailed, type FieldError } from '../../errors.js';
import { evidenceCaptureWrites, type ControlEvidence } from '../../store/evidence.js';
import { projectAccessStillHolds, tokenStillGrants, userStillActive } from '../../store/guards.js';
import type { WriteItem } from '../../store/transact.js';
import { NoQuery } from '../kernel/common.js';
import {
  ACTIONS,
  allowances,
  BASE,
  ControlParams,
  controlCollections,
  controlOf,
  controlPrefetch,
  controlWrites,
  detail,
  controlEtag,
  transitionNotAvailable,
} from './access.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { approvalTaskChange } from '../tasks/approvals.js';
import { requireIfMatch } from '../kernel/etag.js';

/* POST …/transitions: the configured workflow's transitions, their gates and the one conditional write. */

/** Each gate's own error (seed, States rule 3, and the evidence rule of assessing_to_assessed). */
function checkGate(gate: Gate, control: StoredControl, evidence: ControlEvidence, acknowledged: boolean): { capture?: Capture } {
  if (gate === 'implementation_complete') {
    const missing = preparationMissing(control);
    if (missing.length) throw gateProblem('transition_prerequisite_missing', 'The control lacks what this transition needs.', missing);
    return {};
  }
  if (gate === 'assessment_matrix_complete') {
    const missing = matrixMissing(control);
    if (missing.length) throw gateProblem('assessment_matrix_incomplete', 'The assessment matrix is incomplete.', missing);
    return {};
  }
  const capture = captureEvidence(
    evidence.items.map((e) => ({ id: e.id, kind: e.kind, title: e.title, status: statusOf(e), version: e.version, sha256: e.sha256 ?? null })),
  );
  if (capture.warnings.length && !acknowledged) {
    throw conflict(
      'evidence_acknowledgement_required',
      'Some evidence cannot be captured or verified; retry with acknowledge_evidence_warnings: true and the same ETag to proceed.',
      {
        evidence_warnings: capture.warnings,
      },
    );
  }
  return { capture };
}

const gateProblem = (code: string, detail: string, errors: FieldError[]) => new ApiError(422, code, 'Unprocessable Content', detail, { errors });

/**
 * Seed, States rule 2: the credential (still issued, unexpired, with the permissions selected),
 * the actor (active, with the permissions held), the project and workflow configuration, and the
 * control's version, all as conditions of the one transaction that changes the state.
 */
function authorityStillHeld(ctx: OperationContext, projectId: string, needed: readonly Permission[]): WriteItem[] {
  const { caller } = ctx;
  const all = [...new Set(needed.flatMap((p) => [p, ...dependenciesOf('project', p)]))];
  return [
    tokenStillGrants(caller.tokenId, ctx.now, all, () => unauthorized()),
    userStillActive(caller.userId, () => unauthorized()),
    projectAccessStillHolds(caller.userId, projectId, all, () =>
      forbidden('permission_not_held', 'The user no longer holds the permission this transition needs.'),
    ),
  ];
}

export const transitionControl = operation({
  id: ACTIONS.transition,
  method: 'POST',
  path: `${BASE}/{control}/transitions`,
  summary: 'Move a control through its workflow with a transition ID from allowed_transitions (If-Match the control ETag).',
  description:
    'The permission depends on the transition (see allowed_transitions). Approval and rejection decisions need a non-blank comment; other transitions refuse one (422). A lost response is ambiguous: read the control before any retry.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: TransitionRequest, mediaType: 'application/json' },
  response: Control,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: [
    'Changes the control workflow state',
    'Records an approval or rejection decision with its comment',
    'Captures evidence versions on reaching assessed',
    'Opens an approval task on entering a decision state and closes it with the decision',
    'Writes an audit record',
  ],
  prefetch: controlPrefetch,
  prefetchCollections: controlCollections,
  handle: async (ctx, { params, body }) => {
    const { project, control, evidence } = controlOf(ctx, params);
    requireIfMatch(ctx.ifMatch, controlEtag(ctx.caller, project, control, evidence));
    const transition = allowances(ctx.caller, project, control).transitions.find((t) => t.id === body.transition);
    if (!transition) throw transitionNotAvailable(body.transition);
    const comment = body.comment?.trim() ?? '';
    if (transition.comment === 'required' && !comment)
      throw validationFailed([{ pointer: '/comment', code: 'comment_required', detail: 'This decision needs a non-blank comment.' }]);
    if (transition.comment === 'rejected' && body.comment !== undefined)
      throw validationFailed([{ pointer: '/comment', code: 'comment_not_accepted', detail: 'This transition does not take a comment.' }]);
    let capture: Capture | undefined;
    for (const gate of transition.gates) capture = checkGate(gate, control, evidence, body.acknowledge_evidence_warnings === true).capture ?? capture;
    const at = ctx.now.toISOString();
    const approval = approvalTaskChange(control, transition, ctx.now);
    const next: StoredControl = {
      ...control,
      workflow_state: transition.to,
      approval_task_id: approval.approvalTaskId,
      last_transition: {
        id: transition.id,
        from: transition.from,
        to: transition.to,
        comment: comment || null,
        by: ctx.caller.userId,
        at,
        // A decision on an assessment is assessment content: readers without the assessment view do not see it.
        assessment: transition.permissions.includes('view-control-assessment'),
      },
      ...(capture
        ? { evidence_snapshot: { captured_at: at, versions: capture.versions, acknowledged_warnings: capture.warnings.map((w) => w.evidence_id) } }
        : {}),
      updated_at: at,
      version: control.version + 1,
    };
    return {
      ...(await detail(ctx, project, next, evidence)),
      writes: [
        ...controlWrites(project, control, next, transition),
        ...approval.writes,
        ...authorityStillHeld(ctx, project.id, transition.permissions),
        ...(capture ? evidenceCaptureWrites(project.id, control.id, evidence, capture.versions) : []),
      ],
      auditDetails: {
        transition: transition.id,
        from: transition.from,
        to: transition.to,
        comment: comment || null,
        acknowledged_evidence_warnings: capture?.warnings.length ?? 0,
      },
    };
  },
});
