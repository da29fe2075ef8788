import * as z from 'zod';
import { monotonicUlids } from '../../domain/ids.js';
import { CreateRegisterReview, RegisterReview, reviewView, type StoredRegisterReview } from '../../domain/register-reviews.js';
import { manifestOf, REGISTER_DEFINITIONS, RegisterDefinitionView } from '../../domain/registers.js';
import { keys } from '../../store/keys.js';
import { reviewCount, reviewsPage, reviewWrites } from '../../store/register-reviews.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { boundProjectOf, ProjectParams, requireEditable, projectStillEditable } from '../projects/access.js';
import { PROJECT_REGISTERS_PATH, ProjectRegisterParams, projectRegisterOf, requireReviewable, writableHere } from './project-access.js';

/** Monotonic, so that reviews recorded within one millisecond keep their order by ID. */
const nextReviewId = monotonicUlids();

const REVIEWS_PATH = `${PROJECT_REGISTERS_PATH}/{definition}/reviews`;

export const listProjectRegisters = operation({
  id: 'listProjectRegisters',
  method: 'GET',
  path: PROJECT_REGISTERS_PATH,
  summary: "List the register definitions the project sees: its own, its system's, the organisation's shared one and the generated control summary.",
  description:
    'Each definition is its manifest: columns, types, enums and logical key. writable is true only for project-owned manual definitions of a project that is not archived, on a mutation-enabled credential with manage-registers; shared registers and the generated control summary are read-only here.',
  credential: ['project'],
  permission: { project: [['view-registers']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: () => z.array(RegisterDefinitionView()),
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    return { data: REGISTER_DEFINITIONS.map((d) => manifestOf(d, writableHere(d, ctx.caller, project))) };
  },
});

export const getProjectRegister = operation({
  id: 'getProjectRegister',
  method: 'GET',
  path: `${PROJECT_REGISTERS_PATH}/{definition}`,
  summary: 'Read a register manifest: column IDs and types, required columns, enums, logical key and a writable hint.',
  description:
    'writable is true only for project-owned manual definitions of a project that is not archived, on a mutation-enabled credential with manage-registers.',
  credential: ['project'],
  permission: { project: [['view-registers']] },
  success: 200,
  params: ProjectRegisterParams,
  query: NoQuery,
  response: RegisterDefinitionView,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const { project, definition } = projectRegisterOf(ctx, params);
    return { data: manifestOf(definition, writableHere(definition, ctx.caller, project)) };
  },
});

export const listRegisterReviews = operation({
  id: 'listRegisterReviews',
  method: 'GET',
  path: REVIEWS_PATH,
  summary: "The project's reviews of a manual register, newest reviewed time first, then by ID.",
  description: 'A generated definition has no reviews (404).',
  credential: ['project'],
  permission: { project: [['view-registers']] },
  success: 200,
  params: ProjectRegisterParams,
  query: PageQuery,
  response: () => z.array(RegisterReview()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), keys.projectCounters(project)],
  handle: async (ctx, { params }) => {
    const { definition } = projectRegisterOf(ctx, params);
    requireReviewable(definition);
    const page = await reviewsPage(params.project, definition.id, ctx.page);
    return { data: page.map(reviewView), total: reviewCount(ctx.prefetched(keys.projectCounters(params.project)), definition.id) };
  },
});

/** Reviews need an editable project; a replay checks it again, since the project may be archived since. */
function reviewableProject(ctx: OperationContext, params: ProjectRegisterParams) {
  const { project, definition } = projectRegisterOf(ctx, params);
  requireReviewable(definition);
  requireEditable(project);
  return { project, definition };
}

export const createRegisterReview = operation({
  id: 'createRegisterReview',
  method: 'POST',
  path: REVIEWS_PATH,
  summary: 'Record that the caller reviewed a manual register the project sees (optional body {notes}).',
  description:
    'The review records the actor and the time; it never snapshots, approves or changes rows. No body, or an empty object, records a review without notes. Replays check authority and project editability again.',
  credential: ['project'],
  permission: { project: [['manage-registers', 'view-registers']] },
  success: 201,
  params: ProjectRegisterParams,
  query: NoQuery,
  body: { schema: CreateRegisterReview, mediaType: 'application/json' },
  response: RegisterReview,
  idempotencyKey: true,
  auditKind: 'REGISTER_REVIEWED',
  sideEffects: ['Records the review', "Counts the register's reviews", 'Writes an audit record of kind REGISTER_REVIEWED'],
  prefetch: ({ project }) => [keys.project(project)],
  recheck: (ctx, { params }) => {
    reviewableProject(ctx, params);
  },
  handle: async (ctx, { params, body }) => {
    const { project, definition } = reviewableProject(ctx, params);
    const review: StoredRegisterReview = {
      id: nextReviewId(ctx.now.getTime()),
      project_id: project.id,
      definition_id: definition.id,
      notes: body.notes,
      reviewed_by: ctx.caller.userId,
      reviewed_at: ctx.now.toISOString(),
    };
    return {
      data: reviewView(review),
      auditTarget: { project: project.id, definition: definition.id, review: review.id },
      writes: [...reviewWrites(review), projectStillEditable(project.id)],
    };
  },
});

export const projectRegisterOperations = [listProjectRegisters, getProjectRegister, listRegisterReviews, createRegisterReview];
