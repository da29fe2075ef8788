import * as z from 'zod';
import { controlWorkflow } from '../../config.js';
import { MATURITY_LEVELS } from '../../domain/oscal.js';
import {
  applyAssessment,
  applyImplementation,
  assessedPropertiesIn,
  IMPLEMENTATION_STATUSES,
  UpdateControlAssessment,
  UpdateControlImplementation,
  type ControlListing,
} from '../../domain/controls.js';
import { Control, ControlListItem, controlListItem } from '../../domain/control-views.js';
import { stateIds } from '../../domain/workflow.js';
import { forbidden, validationFailed } from '../../errors.js';
import { configuredChoice, filledLine, once } from '../../domain/validation.js';
import { digestKeys, matchingPositions, readDigest, readIndex, type ListFilter } from '../../store/control-filters.js';
import { attentionList, controlList, controlsAt, controlsPage } from '../../store/controls.js';
import { keys } from '../../store/keys.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import {
  ACTIONS,
  BASE,
  ControlParams,
  controlCollections,
  controlOf,
  controlPrefetch,
  controlWrites,
  detail,
  controlEtag,
  requireEditable,
  seesAssessment,
} from './access.js';
import { transitionControl } from './transitions.js';
import { operation } from './declare.js';
import { boundProjectOf, ProjectParams } from '../projects/access.js';
import { requireIfMatch } from '../kernel/etag.js';

/* Reads. */

const ListQuery = once(() =>
  PageQuery().extend({
    'filter[applicability_attention]': z.enum(['conflicts', 'suggested_exclusions']).optional().meta({
      description:
        'conflicts: explicit choices that differ from the recommendation; suggested_exclusions: applicable controls the recommendation would exclude.',
    }),
    'filter[workflow_state]': configuredChoice(() => stateIds(controlWorkflow()), 'a workflow state', 'unknown_state')
      .optional()
      .meta({ description: 'A state of the configured control workflow.' }),
    'filter[applicability]': z.enum(['y', 'n']).optional(),
    'filter[implementation_status]': z
      .enum([...IMPLEMENTATION_STATUSES, 'ec', 'not_set'])
      .optional()
      .meta({ description: 'not_set: no implementation status recorded yet.' }),
    'filter[essential_eight]': z.enum(MATURITY_LEVELS).optional().meta({ description: 'Controls of this Essential Eight maturity level.' }),
    'filter[q]': filledLine(200).optional().meta({ description: 'Case-insensitive text in the control identifier or title.' }),
  }),
);
type ListQuery = z.output<ReturnType<typeof ListQuery>>;

/** The filters other than attention, which the sparse attention index answers by itself. */
function matcher(q: ListQuery): ((c: ControlListing) => boolean) | undefined {
  const tests: ((c: ControlListing) => boolean)[] = [];
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

const filterOf = (q: ListQuery): ListFilter => ({
  workflow_state: q['filter[workflow_state]'],
  applicability: q['filter[applicability]'],
  implementation_status: q['filter[implementation_status]'],
  essential_eight: q['filter[essential_eight]'],
  text: q['filter[q]']?.toLowerCase(),
});

export const listControls = operation({
  id: 'listControls',
  method: 'GET',
  path: BASE,
  summary:
    "The project's controls in catalogue order, filtered by applicability attention, workflow state, applicability, implementation status, Essential Eight level or text.",
  description: 'Filters combine (all must hold). A page reads only its own controls; an attention filter reads only the controls that need that attention.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ProjectParams,
  query: ListQuery,
  response: () => z.array(ControlListItem()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), keys.projectControlIndex(project), ...digestKeys(project)],
  handle: async (ctx, { params, query }) => {
    const project = boundProjectOf(ctx, params.project);
    const matches = matcher(query);
    const attention = query['filter[applicability_attention]'];
    const index = readIndex(ctx.prefetched(keys.projectControlIndex(project.id)));
    const from = (ctx.page.number - 1) * ctx.page.size;
    if (!matches && !attention && index) {
      const page = await controlsPage(project.id, index, ctx.page);
      return { data: page.map(controlListItem), total: index.positions.length };
    }
    const matched = attention ? undefined : matchingPositions(index, readDigest(digestKeys(project.id).map(ctx.prefetched)), filterOf(query));
    if (index && matched) {
      const page = await controlsAt(project.id, index.positions, matched.slice(from, from + ctx.page.size));
      return { data: page.map(controlListItem), total: matched.length };
    }
    // Attention reads only the controls that need it; a project whose index or digest is not
    // written yet (being populated, or populated before they existed) reads every control once.
    const candidates = attention
      ? await attentionList(project.id, attention === 'conflicts' ? 'conflict' : 'suggested_exclusion')
      : await controlList(project.id);
    const all = candidates.filter(matches ?? (() => true));
    return { data: all.slice(from, from + ctx.page.size).map(controlListItem), total: all.length };
  },
});

export const getControl = operation({
  id: 'getControl',
  method: 'GET',
  path: `${BASE}/{control}`,
  summary: 'A control with its implementation, applicability context, what this caller may do now, evidence, and (with assessment authority) the assessment.',
  description:
    'Assessment properties and assessment_matrix_completeness need view-control-assessment selected and held; without it they are absent and named in redacted_fields. Choose a transition from allowed_transitions before POST …/transitions.',
  credential: ['project'],
  permission: { project: [['view-controls']] },
  success: 200,
  params: ControlParams,
  query: NoQuery,
  response: Control,
  etag: true,
  sideEffects: [],
  prefetch: controlPrefetch,
  prefetchCollections: controlCollections,
  handle: async (ctx, { params }) => {
    const { project, control, evidence } = controlOf(ctx, params);
    return detail(ctx, project, control, evidence);
  },
});

/* Edits. */

export const updateControlImplementation = operation({
  id: ACTIONS.implementation,
  method: 'PATCH',
  path: `${BASE}/{control}/implementation`,
  summary: 'Edit the implementation, applicability and proposed (assessed-party) claims of a control (JSON merge patch, If-Match).',
  description:
    'Supplying applicability records an explicit decision even when unchanged; an exclusion, or a choice that differs from the recommendation, needs applicability_comment. ec is server-owned (422). *_assessed_* properties are refused: 403 without assessment authority, 422 with it.',
  credential: ['project'],
  permission: { project: [['edit-control-implementation', 'view-controls']] },
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: UpdateControlImplementation, mediaType: 'application/merge-patch+json' },
  response: Control,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the control', 'Moves the project control counts', 'Writes an audit record'],
  prefetch: controlPrefetch,
  prefetchCollections: controlCollections,
  handle: async (ctx, { params, body }) => {
    const { project, control, evidence } = controlOf(ctx, params);
    const assessed = assessedPropertiesIn(body);
    if (assessed.length) {
      if (!seesAssessment(ctx.caller) || !ctx.caller.permissions.has('edit-control-assessment')) {
        throw forbidden('assessment_authority_required', 'Assessment conclusions need edit-control-assessment and view-control-assessment.');
      }
      throw validationFailed(
        assessed.map((p) => ({ pointer: `/${p}`, code: 'assessment_property', detail: 'is an assessment conclusion: write it with PATCH …/assessment' })),
      );
    }
    requireIfMatch(ctx.ifMatch, controlEtag(ctx.caller, project, control, evidence));
    requireEditable(project, control, 'implementation');
    const at = ctx.now.toISOString();
    const { next, errors } = applyImplementation(control, body, { userId: ctx.caller.userId, at });
    if (errors.length) throw validationFailed(errors);
    const written = { ...next, updated_at: at, version: control.version + 1 };
    return {
      ...(await detail(ctx, project, written, evidence)),
      writes: controlWrites(project, control, written),
      auditDetails: { changed_fields: Object.keys(body).join(','), applicability_decision: body.applicability ?? null },
    };
  },
});

export const updateControlAssessment = operation({
  id: ACTIONS.assessment,
  method: 'PATCH',
  path: `${BASE}/{control}/assessment`,
  summary: 'Edit the assessment of a control: *_assessed_* conclusions and the assessment record (JSON merge patch, If-Match).',
  description:
    'Drafts may be incomplete; the assessment rules (an outcome other than not_assessed, a rationale or evidence references, a severity for ineffective, no_visibility and not_implemented) apply on submission. Common Control is refused on rows other than SSP control rows.',
  credential: ['project'],
  permission: { project: [['edit-control-assessment', 'view-control-assessment', 'view-controls']] },
  success: 200,
  params: ControlParams,
  query: NoQuery,
  body: { schema: UpdateControlAssessment, mediaType: 'application/merge-patch+json' },
  response: Control,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the control assessment', 'Writes an audit record'],
  prefetch: controlPrefetch,
  prefetchCollections: controlCollections,
  handle: async (ctx, { params, body }) => {
    const { project, control, evidence } = controlOf(ctx, params);
    requireIfMatch(ctx.ifMatch, controlEtag(ctx.caller, project, control, evidence));
    requireEditable(project, control, 'assessment');
    const { next, errors } = applyAssessment(control, body);
    if (errors.length) throw validationFailed(errors);
    const written = { ...next, updated_at: ctx.now.toISOString(), version: control.version + 1 };
    return {
      ...(await detail(ctx, project, written, evidence)),
      writes: controlWrites(project, control, written),
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

export const controlOperations = [listControls, getControl, updateControlImplementation, updateControlAssessment, transitionControl];
