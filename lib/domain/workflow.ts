import * as z from 'zod';
import { permissionsOf, type Permission } from './permissions.js';
import { once } from './validation.js';

/**
 * The control workflow as configuration data (seed, States: "the control workflow is configured
 * and every configured transition is exposed"). Operations read states, transitions, permissions,
 * comment rules, setting conditions and gates from it; only the default below names them.
 */
const EDITS = ['implementation', 'assessment'] as const;
export type EditKind = (typeof EDITS)[number];

/** Project settings a transition may be conditional on (which of two submit paths is offered). */
const WORKFLOW_SETTINGS = ['edit_approval', 'assessment_approval'] as const;
export type WorkflowSetting = (typeof WORKFLOW_SETTINGS)[number];
export type WorkflowSettings = Record<WorkflowSetting, boolean>;

/**
 * What must hold before a transition, each with its own error: implementation prerequisites
 * (transition_prerequisite_missing), the assessment matrix (assessment_matrix_incomplete), and
 * evidence capture (evidence_acknowledgement_required).
 */
const GATES = ['implementation_complete', 'assessment_matrix_complete', 'evidence_captured'] as const;
export type Gate = (typeof GATES)[number];

/**
 * The schema of a workflow configuration, built at its first use: only a deployment's own
 * CONTROL_WORKFLOW is parsed, and every function imports this module.
 */
const workflowSchema = once(() => {
  const Id = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
  return z
    .object({
      initial: Id,
      states: z.array(z.object({ id: Id, edits: z.array(z.enum(EDITS)) })).min(1),
      transitions: z.array(
        z.object({
          id: Id,
          from: Id,
          to: Id,
          /** Held in full, as effective permissions (selected, live, with dependencies) of a project credential. */
          permissions: z.array(z.enum(permissionsOf('project') as [Permission, ...Permission[]])).min(1),
          /** Seed rule 1: the approval and rejection decisions require a comment; every other transition rejects one. */
          comment: z.enum(['required', 'rejected']),
          when: z.object({ setting: z.enum(WORKFLOW_SETTINGS), is: z.boolean() }).optional(),
          gates: z.array(z.enum(GATES)),
        }),
      ),
    })
    .superRefine((w, ctx) => {
      const states = new Set(w.states.map((s) => s.id));
      if (states.size !== w.states.length) ctx.addIssue({ code: 'custom', message: 'state ids must be unique', path: ['states'] });
      if (!states.has(w.initial)) ctx.addIssue({ code: 'custom', message: 'the initial state must be a state', path: ['initial'] });
      const ids = new Set(w.transitions.map((t) => t.id));
      if (ids.size !== w.transitions.length) ctx.addIssue({ code: 'custom', message: 'transition ids must be unique', path: ['transitions'] });
      w.transitions.forEach((t, i) => {
        if (!states.has(t.from) || !states.has(t.to)) ctx.addIssue({ code: 'custom', message: `${t.id} names an unknown state`, path: ['transitions', i] });
      });
    });
});
export type WorkflowConfig = z.infer<ReturnType<typeof workflowSchema>>;
export type Transition = WorkflowConfig['transitions'][number];

const IMPLEMENTER: Permission[] = ['edit-control-implementation'];
const ASSESSOR: Permission[] = ['edit-control-assessment', 'view-control-assessment'];

/**
 * spec/operations.md, "Default control workflow". Typed rather than parsed at import, which every
 * function that reads a workflow would pay at its cold start; test/unit/domain/workflow.test.ts
 * checks that the schema accepts it unchanged.
 */
export const DEFAULT_WORKFLOW: WorkflowConfig = {
  initial: 'editing',
  states: [
    { id: 'editing', edits: ['implementation'] },
    { id: 'approving_edit', edits: [] },
    { id: 'ready_for_assessment', edits: [] },
    { id: 'assessing', edits: ['assessment'] },
    { id: 'approving_assessment', edits: [] },
    { id: 'assessed', edits: [] },
  ],
  transitions: [
    {
      id: 'editing_to_ready_for_assessment',
      from: 'editing',
      to: 'ready_for_assessment',
      permissions: IMPLEMENTER,
      comment: 'rejected',
      when: { setting: 'edit_approval', is: false },
      gates: ['implementation_complete'],
    },
    {
      id: 'editing_to_approving_edit',
      from: 'editing',
      to: 'approving_edit',
      permissions: IMPLEMENTER,
      comment: 'rejected',
      when: { setting: 'edit_approval', is: true },
      gates: ['implementation_complete'],
    },
    {
      id: 'approving_edit_to_ready_for_assessment',
      from: 'approving_edit',
      to: 'ready_for_assessment',
      permissions: ['approve-edits'],
      comment: 'required',
      gates: [],
    },
    { id: 'approving_edit_to_editing', from: 'approving_edit', to: 'editing', permissions: ['approve-edits'], comment: 'required', gates: [] },
    { id: 'ready_for_assessment_to_assessing', from: 'ready_for_assessment', to: 'assessing', permissions: ASSESSOR, comment: 'rejected', gates: [] },
    { id: 'ready_for_assessment_to_editing', from: 'ready_for_assessment', to: 'editing', permissions: IMPLEMENTER, comment: 'rejected', gates: [] },
    {
      id: 'assessing_to_assessed',
      from: 'assessing',
      to: 'assessed',
      permissions: ASSESSOR,
      comment: 'rejected',
      when: { setting: 'assessment_approval', is: false },
      gates: ['assessment_matrix_complete', 'evidence_captured'],
    },
    {
      id: 'assessing_to_approving_assessment',
      from: 'assessing',
      to: 'approving_assessment',
      permissions: ASSESSOR,
      comment: 'rejected',
      when: { setting: 'assessment_approval', is: true },
      gates: ['assessment_matrix_complete'],
    },
    {
      id: 'approving_assessment_to_assessed',
      from: 'approving_assessment',
      to: 'assessed',
      permissions: ['approve-assessments', 'view-control-assessment'],
      comment: 'required',
      gates: ['assessment_matrix_complete', 'evidence_captured'],
    },
    {
      id: 'approving_assessment_to_assessing',
      from: 'approving_assessment',
      to: 'assessing',
      permissions: ['approve-assessments', 'view-control-assessment'],
      comment: 'required',
      gates: [],
    },
    { id: 'assessed_to_editing', from: 'assessed', to: 'editing', permissions: ASSESSOR, comment: 'rejected', gates: [] },
  ],
};

/** Validates a workflow configuration (a deployment may supply its own). */
export const parseWorkflow = (input: unknown): WorkflowConfig => workflowSchema().parse(input);

/** Whether a CONTROL_WORKFLOW setting is a valid workflow (checked at synth, and by a function at its first read of the setting). */
export function isWorkflowJson(raw: string): boolean {
  try {
    parseWorkflow(JSON.parse(raw));
    return true;
  } catch {
    return false;
  }
}

export const DEFAULT_SETTINGS: WorkflowSettings = { edit_approval: false, assessment_approval: false };

export const stateIds = (w: WorkflowConfig) => w.states.map((s) => s.id);

export const editsIn = (w: WorkflowConfig, state: string): readonly EditKind[] => w.states.find((s) => s.id === state)?.edits ?? [];

/** The transitions configured from this state under the project's settings, whoever asks. */
export function configuredFrom(w: WorkflowConfig, state: string, settings: WorkflowSettings): Transition[] {
  return w.transitions.filter((t) => t.from === state && (!t.when || settings[t.when.setting] === t.when.is));
}

/** The transitions this caller may take now (seed: allowed_transitions, and what POST transitions accepts). */
export function availableTransitions(
  w: WorkflowConfig,
  state: string,
  settings: WorkflowSettings,
  can: { editable: boolean; mutation: boolean; permissions: ReadonlySet<Permission> },
): Transition[] {
  if (!can.editable || !can.mutation) return [];
  return configuredFrom(w, state, settings).filter((t) => t.permissions.every((p) => can.permissions.has(p)));
}
