import { z } from 'zod';
import { controlWorkflow } from '../config.js';
import { dependenciesOf, type Permission } from '../auth/permissions.js';
import { MATURITY_LEVELS } from '../catalogue/oscal.js';
import {
  applyAssessment,
  applyImplementation,
  assessedPropertiesIn,
  Control,
  ControlListItem,
  controlListItem,
  controlView,
  IMPLEMENTATION_STATUSES,
  matrixMissing,
  preparationMissing,
  TransitionRequest,
  UpdateControlAssessment,
  UpdateControlImplementation,
  type StoredControl,
} from '../domain/controls.js';
import { captureEvidence } from '../domain/evidence-capture.js';
import { workflowSettingsOf, type StoredProject } from '../domain/projects.js';
import { availableTransitions, DEFAULT_SETTINGS, editsIn, stateIds, type EditKind, type Gate, type Transition } from '../domain/workflow.js';
import { etagFor } from '../http/etag.js';
import { ApiError, conflict, forbidden, notFound, preconditionFailed, unauthorized, validationFailed, type FieldError } from '../http/errors.js';
import { and, attributeAfter, attributeEquals, containsAll, itemPresent, memberEquals } from '../store/conditions.js';
import { attentionList, controlItem, controlList, controlsPage, summaryDelta, toControl } from '../store/controls.js';
import { keys } from '../store/keys.js';
import type { WriteItem } from '../store/transact.js';
import { replaceVersioned } from '../store/versioned.js';
import { NoQuery, PageQuery, Ulid } from './common.js';
import { operation, type Caller, type OperationContext } from './operation.js';
import { boundProjectOf, ProjectParams } from './project-access.js';

const ETAG_KIND = 'control';
/** allowed_actions names the operations a caller may call on the control now, by operation ID. */
const ACTIONS = { implementation: 'updateControlImplementation', assessment: 'updateControlAssessment', transition: 'transitionControl' } as const;
const BASE = '/projects/{project}/controls';
const ControlParams = ProjectParams.extend({ control: Ulid });
type ControlParams = z.output<typeof ControlParams>;

/* Authority over one control, for this caller, now. */

/** Seed, Redaction: assessment properties need view-control-assessment, selected and held live. */
const seesAssessment = (caller: Caller) => caller.permissions.has('view-control-assessment');

/** Seed, Errors: 403 when project editability does not allow the action; undefined when it does. */
function editabilityProblem(p: Pick<StoredProject, 'archived' | 'lifecycle_state'>): ApiError | undefined {
  if (p.archived) return forbidden('project_archived', 'The project is archived; its controls cannot change.');
  if (p.lifecycle_state !== 'active') return forbidden('project_not_active', 'The project is not populated yet; its controls cannot change.');
  return undefined;
}

/** The edits of each kind need these permissions, held in full, as well as a state that allows the kind. */
const EDIT_AUTHORITY: Record<EditKind, Permission[]> = {
  implementation: ['edit-control-implementation'],
  assessment: ['edit-control-assessment', 'view-control-assessment'],
};

const stateAllows = (control: StoredControl, kind: EditKind) => editsIn(controlWorkflow(), control.workflow_state).includes(kind);

/** What this caller may do with the control now: the allowed actions and transitions of the detail. */
function allowances(caller: Caller, project: StoredProject, control: StoredControl) {
  const editable = !editabilityProblem(project);
  const mutation = !caller.readOnly;
  const transitions = availableTransitions(controlWorkflow(), control.workflow_state, workflowSettingsOf(project), { editable, mutation, permissions: caller.permissions });
  const canEdit = (kind: EditKind) => editable && mutation && EDIT_AUTHORITY[kind].every((p) => caller.permissions.has(p)) && stateAllows(control, kind);
  const actions = [...(canEdit('implementation') ? [ACTIONS.implementation] : []), ...(canEdit('assessment') ? [ACTIONS.assessment] : []), ...(transitions.length ? [ACTIONS.transition] : [])];
  return { transitions, actions };
}

/**
 * The ETag names the version and everything else the representation shows this caller: the
 * assessment view and what the caller may do now (which moves with the project's settings and
 * editability). If-Match is checked against the same name, so a change to either is 412.
 */
function etagOf(caller: Caller, project: StoredProject, control: StoredControl): string {
  const { transitions, actions } = allowances(caller, project, control);
  const view = [seesAssessment(caller) ? 'assessment' : '', actions.join(','), transitions.map((t) => t.id).join(',')].join('|');
  return etagFor(ETAG_KIND, control.id, control.version, view);
}

function requireCurrent(ctx: OperationContext, project: StoredProject, control: StoredControl): void {
  if (ctx.ifMatch?.trim() !== etagOf(ctx.caller, project, control)) throw preconditionFailed();
}

function detail(ctx: OperationContext, project: StoredProject, control: StoredControl) {
  const { transitions, actions } = allowances(ctx.caller, project, control);
  return {
    data: controlView(control, {
      assessment: seesAssessment(ctx.caller),
      allowedActions: actions,
      allowedTransitions: transitions.map((t) => ({ id: t.id, to_state: t.to, comment: t.comment })),
    }),
    etag: etagOf(ctx.caller, project, control),
  };
}

const controlPrefetch = (p: ControlParams) => [keys.project(p.project), keys.control(p.project, p.control)];

function controlOf(ctx: OperationContext, p: ControlParams): { project: StoredProject; control: StoredControl } {
  const project = boundProjectOf(ctx, p.project);
  const item = ctx.prefetched(keys.control(p.project, p.control));
  if (!item) throw notFound();
  return { project, control: toControl(item) };
}

/** An edit needs an editable project and a workflow state that allows its kind (seed, Errors: 403). */
function requireEditable(project: StoredProject, control: StoredControl, kind: EditKind): void {
  const problem = editabilityProblem(project);
  if (problem) throw problem;
  if (!stateAllows(control, kind)) throw forbidden('workflow_state_forbids_edit', `The control is in ${control.workflow_state}, which does not allow ${kind} edits.`);
}

/**
 * The project as the edit saw it: still active and unarchived when the write lands, and, for a
 * transition that depends on a project setting, that setting unchanged.
 */
function projectStillAllows(project: StoredProject, transition?: Transition): WriteItem {
  const when = transition?.when;
  // A setting never written holds its default, so a check for the default accepts it absent.
  const setting = when ? [memberEquals(['control_workflow', when.setting], when.is, DEFAULT_SETTINGS[when.setting] === when.is)] : [];
  return {
    kind: 'check',
    key: keys.project(project.id),
    condition: and(attributeEquals('lifecycle_state', 'active'), attributeEquals('archived', false), ...setting),
    // Editable still, so the setting moved: only transitions check one.
    onConditionFailed: (current) => (current ? (editabilityProblem(current as unknown as StoredProject) ?? transitionNotAvailable(transition?.id ?? '')) : notFound()),
  };
}

/** DynamoDB refuses items over 400 KB; long texts are refused first, as bad input (422). */
const MAX_CONTROL_BYTES = 350_000;

/** The control write every edit and transition makes, with the summary counters it moves. */
function controlWrites(project: StoredProject, current: StoredControl, next: StoredControl, transition?: Transition): WriteItem[] {
  const item = controlItem(next);
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_CONTROL_BYTES) {
    throw validationFailed([{ pointer: '', code: 'control_too_large', detail: `The control would exceed ${MAX_CONTROL_BYTES} bytes stored; shorten its texts.` }]);
  }
  const delta = summaryDelta(project.id, current, next);
  return [
    replaceVersioned(item, current.version),
    ...(delta ? [delta] : []),
    projectStillAllows(project, transition),
  ];
}

/* Reads. */

const ListQuery = PageQuery.extend({
  'filter[applicability_attention]': z.enum(['conflicts', 'suggested_exclusions']).optional().meta({ description: 'conflicts: explicit choices that differ from the recommendation; suggested_exclusions: applicable controls the recommendation would exclude.' }),
  'filter[workflow_state]': z.string().min(1).max(64).optional().meta({ description: 'A state of the configured control workflow.' }),
  'filter[applicability]': z.enum(['y', 'n']).optional(),
  'filter[implementation_status]': z.enum([...IMPLEMENTATION_STATUSES, 'ec', 'not_set']).optional().meta({ description: 'not_set: no implementation status recorded yet.' }),
  'filter[essential_eight]': z.enum(MATURITY_LEVELS).optional().meta({ description: 'Controls of this Essential Eight maturity level.' }),
  'filter[q]': z.string().trim().min(1).max(200).optional().meta({ description: 'Case-insensitive text in the control identifier or title.' }),
});
type ListQuery = z.output<typeof ListQuery>;

/** The filters other than attention, which the sparse attention index answers by itself. */
function matcher(q: ListQuery): ((c: StoredControl) => boolean) | undefined {
  const tests: ((c: StoredControl) => boolean)[] = [];
  const state = q['filter[workflow_state]'];
  if (state) tests.push((c) => c.workflow_state === state);
  const applicability = q['filter[applicability]'];
  if (applicability) tests.push((c) => c.applicability === applicability);
  const status = q['filter[implementation_status]'];
  if (status) tests.push((c) => (c.implementation_status ?? 'not_set') === status);
  const level = q['filter[essential_eight]'];
  if (level) tests.push((c) => c.essential_eight.includes(level));
  const text = q['filter[q]']?.toLowerCase();
  if (text) tests.push((c) => c.catalogue_id.toLowerCase().includes(text) || c.label.toLowerCase().includes(text) || c.title.toLowerCase().includes(text));
  return tests.length ? (c) => tests.every((t) => t(c)) : undefined;
}

export const listControls = operation({
  id: 'listControls',
  group: 'controls',
  method: 'GET',
  path: BASE,
  summary: "The project's controls in catalogue order, filtered by applicability attention, workflow state, applicability, implementation status, Essential Eight level or text.",
  description: 'Filters combine (all must hold). An unfiltered page reads only its own controls; an attention filter reads only the controls that need that attention; other filters read the project\'s list fields once.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  mode: 'read',
  success: 200,
  params: ProjectParams,
  query: ListQuery,
  response: z.array(ControlListItem),
  paginated: true,
  errors: [422],
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), keys.projectControlIndex(project)],
  handle: async (ctx, { params, query }) => {
    const project = boundProjectOf(ctx, params.project);
    const state = query['filter[workflow_state]'];
    if (state && !stateIds(controlWorkflow()).includes(state)) {
      throw validationFailed([{ pointer: '/query/filter[workflow_state]', code: 'unknown_state', detail: `is not a workflow state (${stateIds(controlWorkflow()).join(', ')})` }]);
    }
    const matches = matcher(query);
    const attention = query['filter[applicability_attention]'];
    const index = ctx.prefetched(keys.projectControlIndex(project.id));
    if (!matches && !attention && index) {
      const page = await controlsPage(project.id, index, ctx.page);
      return { data: page.map(controlListItem), total: Number(index.count) };
    }
    // Attention reads only the controls that need it; other filters, or a project still being
    // populated (no index yet), read the list fields of every control once.
    const candidates = attention ? await attentionList(project.id, attention === 'conflicts' ? 'conflict' : 'suggested_exclusion') : await controlList(project.id);
    const all = candidates.filter(matches ?? (() => true));
    const from = (ctx.page.number - 1) * ctx.page.size;
    return { data: all.slice(from, from + ctx.page.size).map(controlListItem), total: all.length };
  },
});

export const getControl = operation({
  id: 'getControl',
  group: 'controls',
  method: 'GET',
  path: `${BASE}/{control}`,
  summary: 'A control with its implementation, applicability context, what this caller may do now, evidence, and (with assessment authority) the assessment.',
  description: 'Assessment properties and assessment_matrix_completeness need view-control-assessment selected and held; without it they are absent and named in redacted_fields. Choose a transition from allowed_transitions before POST …/transitions.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  mode: 'read',
  success: 200,
  params: ControlParams,
  query: NoQuery,
  response: Control,
  etag: true,
  errors: [422],
  sideEffects: [],
  prefetch: controlPrefetch,
  handle: async (ctx, { params }) => {
    const { project, control } = controlOf(ctx, params);
    return detail(ctx, project, control);
  },
});

/* Edits. */

export const updateControlImplementation = operation({
  id: ACTIONS.implementation,
  group: 'controls',
  method: 'PATCH',
  path: `${BASE}/{control}/implementation`,
  summary: 'Edit the implementation, applicability and proposed (assessed-party) claims of a control (JSON merge patch, If-Match).',
  description:
    'Supplying applicability records an explicit decision even when unchanged; an exclusion, or a choice that differs from the recommendation, needs applicability_comment. ec is server-owned (422). *_assessed_* properties are refused: 403 without assessment authority, 422 with it.',
  credential: ['project'],
  permission: { project: [['edit-control-implementation', 'view-controls']] },
  mode: 'mutation',
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: UpdateControlImplementation, mediaType: 'application/merge-patch+json' },
  response: Control,
  etag: true,
  ifMatch: true,
  errors: [412, 415, 422, 428],
  sideEffects: ['Updates the control', 'Moves the project control counts', 'Writes an audit record'],
  prefetch: controlPrefetch,
  handle: async (ctx, { params, body }) => {
    const { project, control } = controlOf(ctx, params);
    const assessed = assessedPropertiesIn(body);
    if (assessed.length) {
      if (!seesAssessment(ctx.caller) || !ctx.caller.permissions.has('edit-control-assessment')) {
        throw forbidden('assessment_authority_required', 'Assessment conclusions need edit-control-assessment and view-control-assessment.');
      }
      throw validationFailed(assessed.map((p) => ({ pointer: `/${p}`, code: 'assessment_property', detail: 'is an assessment conclusion: write it with PATCH …/assessment' })));
    }
    requireCurrent(ctx, project, control);
    requireEditable(project, control, 'implementation');
    const at = ctx.now.toISOString();
    const { next, errors } = applyImplementation(control, body, { userId: ctx.caller.userId, at });
    if (errors.length) throw validationFailed(errors);
    const written = { ...next, updated_at: at, version: control.version + 1 };
    return {
      ...detail(ctx, project, written),
      writes: controlWrites(project, control, written),
      auditDetails: { changed_fields: Object.keys(body).join(','), applicability_decision: body.applicability ?? null },
    };
  },
});

export const updateControlAssessment = operation({
  id: ACTIONS.assessment,
  group: 'controls',
  method: 'PATCH',
  path: `${BASE}/{control}/assessment`,
  summary: 'Edit the assessment of a control: *_assessed_* conclusions and the assessment record (JSON merge patch, If-Match).',
  description:
    'Drafts may be incomplete; the assessment rules (an outcome other than not_assessed, a rationale or evidence references, a severity for ineffective, no_visibility and not_implemented) apply on submission. Common Control is refused on rows other than SSP control rows.',
  credential: ['project'],
  permission: { project: [['edit-control-assessment', 'view-control-assessment', 'view-controls']] },
  mode: 'mutation',
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: UpdateControlAssessment, mediaType: 'application/merge-patch+json' },
  response: Control,
  etag: true,
  ifMatch: true,
  errors: [412, 415, 422, 428],
  sideEffects: ['Updates the control assessment', 'Writes an audit record'],
  prefetch: controlPrefetch,
  handle: async (ctx, { params, body }) => {
    const { project, control } = controlOf(ctx, params);
    requireCurrent(ctx, project, control);
    requireEditable(project, control, 'assessment');
    const { next, errors } = applyAssessment(control, body);
    if (errors.length) throw validationFailed(errors);
    const written = { ...next, updated_at: ctx.now.toISOString(), version: control.version + 1 };
    return {
      ...detail(ctx, project, written),
      writes: controlWrites(project, control, written),
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

/* Transitions. */

const transitionNotAvailable = (id: string) =>
  new ApiError(403, 'transition_not_available', 'Forbidden', `The transition ${id} is not available to this credential on this control now; read the control and choose from allowed_transitions.`);

/** Each gate's own error (seed, States rule 3, and the evidence rule of assessing_to_assessed). */
function checkGate(gate: Gate, control: StoredControl, acknowledged: boolean): { capture?: ReturnType<typeof captureEvidence> } {
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
  const capture = captureEvidence(control.evidence_items ?? []);
  if (capture.warnings.length && !acknowledged) {
    throw conflict('evidence_acknowledgement_required', 'Some evidence cannot be captured or verified; retry with acknowledge_evidence_warnings: true and the same ETag to proceed.', {
      evidence_warnings: capture.warnings,
    });
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
    { kind: 'check', key: keys.token(caller.tokenId), condition: and(itemPresent(), attributeAfter('expires_at', ctx.now.toISOString()), containsAll('abilities', all)), onConditionFailed: () => unauthorized() },
    { kind: 'check', key: keys.user(caller.userId), condition: attributeEquals('status', 'active'), onConditionFailed: () => unauthorized() },
    {
      kind: 'check',
      key: keys.projectAccess(caller.userId, projectId),
      condition: containsAll('permissions', all),
      onConditionFailed: () => forbidden('permission_not_held', 'The user no longer holds the permission this transition needs.'),
    },
  ];
}

export const transitionControl = operation({
  id: ACTIONS.transition,
  group: 'controls',
  method: 'POST',
  path: `${BASE}/{control}/transitions`,
  summary: 'Move a control through its workflow with a transition ID from allowed_transitions (If-Match the control ETag).',
  description:
    'The permission depends on the transition (see allowed_transitions). Approval and rejection decisions need a non-blank comment; other transitions refuse one (422). A lost response is ambiguous: read the control before any retry.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  mode: 'mutation',
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: TransitionRequest, mediaType: 'application/json' },
  response: Control,
  etag: true,
  ifMatch: true,
  errors: [409, 412, 415, 422, 428],
  sideEffects: ['Changes the control workflow state', 'Records an approval or rejection decision with its comment', 'Captures evidence versions on reaching assessed', 'Writes an audit record'],
  prefetch: controlPrefetch,
  handle: async (ctx, { params, body }) => {
    const { project, control } = controlOf(ctx, params);
    requireCurrent(ctx, project, control);
    const transition = allowances(ctx.caller, project, control).transitions.find((t) => t.id === body.transition);
    if (!transition) throw transitionNotAvailable(body.transition);
    const comment = body.comment?.trim() ?? '';
    if (transition.comment === 'required' && !comment) throw validationFailed([{ pointer: '/comment', code: 'comment_required', detail: 'This decision needs a non-blank comment.' }]);
    if (transition.comment === 'rejected' && body.comment !== undefined) throw validationFailed([{ pointer: '/comment', code: 'comment_not_accepted', detail: 'This transition does not take a comment.' }]);
    let capture: ReturnType<typeof captureEvidence> | undefined;
    for (const gate of transition.gates) capture = checkGate(gate, control, body.acknowledge_evidence_warnings === true).capture ?? capture;
    const at = ctx.now.toISOString();
    const next: StoredControl = {
      ...control,
      workflow_state: transition.to,
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
      ...(capture ? { evidence_snapshot: { captured_at: at, versions: capture.versions, acknowledged_warnings: capture.warnings.map((w) => w.evidence_id) } } : {}),
      updated_at: at,
      version: control.version + 1,
    };
    return {
      ...detail(ctx, project, next),
      writes: [...controlWrites(project, control, next, transition), ...authorityStillHeld(ctx, project.id, transition.permissions)],
      auditDetails: { transition: transition.id, from: transition.from, to: transition.to, comment: comment || null, acknowledged_evidence_warnings: capture?.warnings.length ?? 0 },
    };
  },
});

export const controlOperations = [listControls, getControl, updateControlImplementation, updateControlAssessment, transitionControl];
