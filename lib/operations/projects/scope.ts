import { Engagement, engagementView, Scope } from '../../domain/projects.js';
import { keys } from '../../store/keys.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { ProjectParams, boundProjectOf } from './access.js';
import { engagementOf, scopeOf, scopeView } from './scope-views.js';

/** Scope and engagement as project credentials read them: without management metadata, allowlisted fields only. */

export const getProjectScope = operation({
  id: 'getProjectScope',
  method: 'GET',
  path: '/projects/{project}/scope',
  summary: 'Read the saved assessment scope, without provider-selection management metadata.',
  description:
    'A project whose scope was never saved reads as empty. The scope is edited with updateSetupProjectScope (organisation credential); this read carries no ETag.',
  credential: ['project'],
  permission: { project: [['manage-projects', 'view-projects']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: Scope,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), keys.projectScope(project)],
  handle: async (ctx, { params }) => {
    boundProjectOf(ctx, params.project);
    return { data: scopeView(scopeOf(ctx, params.project).scope, false) };
  },
});

export const getProjectEngagement = operation({
  id: 'getProjectEngagement',
  method: 'GET',
  path: '/projects/{project}/engagement',
  summary: 'Read the allowlisted engagement details.',
  description:
    'Setup-only fields are never shown to project credentials. The details are edited with updateSetupProjectEngagement (organisation credential); this read carries no ETag.',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: Engagement,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), keys.projectEngagement(project)],
  handle: async (ctx, { params }) => {
    boundProjectOf(ctx, params.project);
    const e = engagementOf(ctx, params.project);
    return { data: engagementView(e.data, e.updatedAt, false) };
  },
});

export const projectScopeOperations = [getProjectScope, getProjectEngagement];
