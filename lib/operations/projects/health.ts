import { projectHealth } from '../../domain/health.js';
import type { StoredProject } from '../../domain/projects.js';
import { asProjectSummary, countsBy, summaryCount } from '../../store/controls.js';
import { keys, type Key } from '../../store/keys.js';
import type { Item } from '../../store/read.js';
import { asRecalculationMarker } from '../../store/recalculations.js';
import type { OperationContext } from '../kernel/operation.js';
import { diagramOf } from './access.js';

/**
 * Project health as the setup-projects and projects functions both answer it. It declares no
 * operation, so that neither function bundles the other's.
 */

const markerOf = (item: Item | undefined) => {
  const marker = asRecalculationMarker(item);
  return marker ? [{ requested_at: marker.requested_at, ...(marker.stopped ? { stopped: marker.stopped } : {}) }] : [];
};

/** Health, given the organisation's and system's recalculation markers (the project's own is prefetched). */
export function healthOf(ctx: OperationContext, project: StoredProject, wider: (Item | undefined)[]) {
  // Seed: applicability counts need view-controls; organisation credentials see no control-level health.
  const controlLevel = ctx.caller.type === 'project' && ctx.caller.permissions.has('view-controls');
  const summary = asProjectSummary(ctx.prefetched(keys.projectSummary(project.id)));
  const counts = (name: string) => summaryCount(summary, name);
  return projectHealth({
    project,
    markers: [...wider, ctx.prefetched(keys.projectRecalculation(project.id))].flatMap(markerOf),
    diagramStatus: diagramOf(ctx, project.id)?.file_status,
    ...(controlLevel
      ? {
          summary: {
            controls: counts('controls'),
            applicable: counts('applicable'),
            not_applicable: counts('not_applicable'),
            suggested_exclusions: counts('suggested_exclusions'),
            conflicts: counts('conflicts'),
          },
          byState: countsBy(summary, 'state_'),
        }
      : {}),
    controlLevelRedacted: !controlLevel,
  });
}

export const healthKeys = (projectId: string): Key[] => [
  keys.project(projectId),
  keys.projectDiagram(projectId),
  keys.projectRecalculation(projectId),
  keys.projectSummary(projectId),
];
