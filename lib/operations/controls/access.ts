import type * as z from 'zod';
import type { Permission } from '../../domain/permissions.js';
import { controlWorkflow } from '../../config.js';
import { controlView } from '../../domain/control-views.js';
import type { StoredControl } from '../../domain/controls.js';
import { evidenceView, type StoredEvidence } from '../../domain/evidence.js';
import { workflowSettingsOf, type StoredProject } from '../../domain/projects.js';
import { availableTransitions, DEFAULT_SETTINGS, editsIn, type EditKind, type Transition } from '../../domain/workflow.js';
import { etagFor } from '../kernel/etag.js';
import { visibleGuidance } from '../../domain/provider-effects.js';
import { ApiError, forbidden, notFound, validationFailed } from '../../errors.js';
import { filterDigestDelta } from '../../store/control-filters.js';
import { toControl } from '../../store/control-entity.js';
import { joinControl } from '../../store/control-text.js';
import { controlItem, summaryDelta } from '../../store/controls.js';
import { controlEvidence, evidenceCollection, type ControlEvidence } from '../../store/evidence.js';
import { projectControlsEditable } from '../../store/guards.js';
import { keys } from '../../store/keys.js';
import { toProject } from '../../store/projects.js';
import type { WriteItem } from '../../store/transact.js';
import { replaceVersioned } from '../../store/versioned.js';
import { Ulid } from '../kernel/common.js';
import type { Caller, OperationContext } from '../kernel/operation.js';
import { boundProjectOf, ProjectParams } from '../projects/access.js';
import { once } from '../../domain/validation.js';

/**
 * What every control operation shares: the control and its project from the authentication round
 * trip, what this caller may do with it now (the allowed actions and transitions, which the ETag
 * names), editability, and the control write with the project checks and summary counters.
 */
const ETAG_KIND = 'control';
/** allowed_actions names the operations a caller may call on the control now, by operation ID. */
export const ACTIONS = { implementation: 'updateControlImplementation', assessment: 'updateControlAssessment', transition: 'transitionControl' } as const;
export const BASE = '/projects/{project}/controls';
export const ControlParams = once(() => ProjectParams().extend({ control: Ulid }));
export type ControlParams = z.output<ReturnType<typeof ControlParams>>;

/* Authority over one control, for this caller, now. */

/** Seed, Redaction: assessment properties need view-control-assessment, selected and held live. */
export const seesAssessment = (caller: Caller) => caller.permissions.has('view-control-assessment');

/** Seed, Errors: 403 when project editability does not allow the action; undefined when it does. */
export function editabilityProblem(p: Pick<StoredProject, 'archived' | 'lifecycle_state'>): ApiError | undefined {
  if (p.archived) return forbidden('project_archived', 'The project is archived; its controls cannot change.');
  if (p.lifecycle_state !== 'active') return forbidden('project_not_active', 'The project is not populated yet; its controls cannot change.');
  return undefined;
}

/** The edits of each kind need these permissions, held in full, as well as a state that allows the kind. */
const EDIT_AUTHORITY: Record<EditKind, Permission[]> = {
  implementation: ['edit-control-implementation'],
  assessment: ['edit-control-assessment', 'view-control-assessment'],
};

export const stateAllows = (control: StoredControl, kind: EditKind) => editsIn(controlWorkflow(), control.workflow_state).includes(kind);

/** What this caller may do with the control now: the allowed actions and transitions of the detail. */
export function allowances(caller: Caller, project: StoredProject, control: StoredControl) {
  const editable = !editabilityProblem(project);
  const mutation = !caller.readOnly;
  const transitions = availableTransitions(controlWorkflow(), control.workflow_state, workflowSettingsOf(project), {
    editable,
    mutation,
    permissions: caller.permissions,
  });
  const canEdit = (kind: EditKind) => editable && mutation && EDIT_AUTHORITY[kind].every((p) => caller.permissions.has(p)) && stateAllows(control, kind);
  const actions = [
    ...(canEdit('implementation') ? [ACTIONS.implementation] : []),
    ...(canEdit('assessment') ? [ACTIONS.assessment] : []),
    ...(transitions.length ? [ACTIONS.transition] : []),
  ];
  return { transitions, actions };
}

/**
 * The ETag names the version and everything else the representation shows this caller: the
 * assessment view and what the caller may do now (which moves with the project's settings and
 * editability). If-Match is checked against the same name, so a change to either is 412.
 */
function viewOf(caller: Caller, project: StoredProject, control: StoredControl, evidence: ControlEvidence): string {
  const { transitions, actions } = allowances(caller, project, control);
  // The evidence list is part of the representation: its revision moves the ETag, not the control's version.
  // At one version, how many guidance entries the caller sees is all that differs between their views of it.
  return [
    seesAssessment(caller) ? 'assessment' : '',
    actions.join(','),
    transitions.map((t) => t.id).join(','),
    `evidence:${evidence.revision}`,
    `guidance:${visibleGuidance(control.provider_guidance, caller.permissions).length}`,
  ].join('|');
}

/** An evidence item's own ETag (seed: separate from the control ETag). */
export const evidenceEtag = (e: StoredEvidence) => etagFor('evidence', e.id, e.version);

/** The control's ETag names the caller's current view of it, which its evidence and the project's state shape. */
export const controlEtag = (caller: Caller, project: StoredProject, control: StoredControl, evidence: ControlEvidence) =>
  etagFor(ETAG_KIND, control.id, control.version, viewOf(caller, project, control, evidence));

/** The control's answer, with its catalogue text and provider guidance joined (kept by a warm function, else read in parallel). */
export async function detail(ctx: OperationContext, project: StoredProject, control: StoredControl, evidence: ControlEvidence) {
  const { transitions, actions } = allowances(ctx.caller, project, control);
  return {
    data: controlView(await joinControl(project.ism_release_id, control), {
      assessment: seesAssessment(ctx.caller),
      permissions: ctx.caller.permissions,
      allowedActions: actions,
      allowedTransitions: transitions.map((t) => ({ id: t.id, to_state: t.to, comment: t.comment })),
      evidence: evidence.items.map((e) => evidenceView(e, evidenceEtag(e))),
    }),
    etag: controlEtag(ctx.caller, project, control, evidence),
  };
}

export const controlPrefetch = (p: ControlParams) => [keys.project(p.project), keys.control(p.project, p.control)];
/** The control's evidence head and items, queried beside the authentication round trip. */
export const controlCollections = (p: ControlParams) => [evidenceCollection(p.project, p.control)];

export function controlOf(ctx: OperationContext, p: ControlParams): { project: StoredProject; control: StoredControl; evidence: ControlEvidence } {
  const project = boundProjectOf(ctx, p.project);
  const item = ctx.prefetched(keys.control(p.project, p.control));
  if (!item) throw notFound();
  return {
    project,
    control: toControl(item),
    evidence: controlEvidence(p.project, p.control, ctx.prefetchedCollection(evidenceCollection(p.project, p.control))),
  };
}

/** An edit needs an editable project and a workflow state that allows its kind (seed, Errors: 403). */
export function requireEditable(project: StoredProject, control: StoredControl, kind: EditKind): void {
  const problem = editabilityProblem(project);
  if (problem) throw problem;
  if (!stateAllows(control, kind))
    throw forbidden('workflow_state_forbids_edit', `The control is in ${control.workflow_state}, which does not allow ${kind} edits.`);
}

/**
 * The project as the edit saw it: still active and unarchived when the write lands, and, for a
 * transition that depends on a project setting, that setting unchanged.
 */
export function projectStillAllows(project: StoredProject, transition?: Transition): WriteItem {
  const when = transition?.when;
  // A setting never written holds its default, so a check for the default accepts it absent.
  const setting = when && { ...when, isDefault: DEFAULT_SETTINGS[when.setting] === when.is };
  // Editable still, so the setting moved: only transitions check one.
  return projectControlsEditable(project.id, setting, (current) =>
    current ? (editabilityProblem(toProject({ ...keys.project(project.id), ...current })) ?? transitionNotAvailable(transition?.id ?? '')) : notFound(),
  );
}

/** DynamoDB refuses items over 400 KB; long texts are refused first, as bad input (422). */
const MAX_CONTROL_BYTES = 350_000;

/** The control write every edit and transition makes, with the summary counters and filter digest it moves. */
export function controlWrites(project: StoredProject, current: StoredControl, next: StoredControl, transition?: Transition): WriteItem[] {
  const item = controlItem(next);
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_CONTROL_BYTES) {
    throw validationFailed([
      { pointer: '', code: 'control_too_large', detail: `The control would exceed ${MAX_CONTROL_BYTES} bytes stored; shorten its texts.` },
    ]);
  }
  const moved = [summaryDelta(project.id, current, next), filterDigestDelta(project.id, current, next)].filter((w) => w !== undefined);
  return [replaceVersioned(item, current.version), ...moved, projectStillAllows(project, transition)];
}

/** Seed, States rule 3: the transition is not among those this caller may take on this control now. */
export const transitionNotAvailable = (id: string) =>
  new ApiError(
    403,
    'transition_not_available',
    'Forbidden',
    `The transition ${id} is not available to this credential on this control now; read the control and choose from allowed_transitions.`,
  );
