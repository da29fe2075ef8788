import * as z from 'zod';
import { once } from './validation.js';
import { LIFECYCLE_STATES, POPULATION_STATUSES, type StoredProject } from './projects.js';

/**
 * Project health (seed, Named resources): independent of setup readiness; warnings count issues,
 * not controls; recalculation and stale_recommendations describe recommendation freshness; the
 * applicability counts need view-controls, so organisation credentials never see them.
 */
const Warning = once(() => z.object({ code: z.string(), detail: z.string() }));

export const ProjectHealth = once(() =>
  z
    .object({
      project_id: z.string(),
      lifecycle_state: z.enum(LIFECYCLE_STATES),
      archived: z.boolean(),
      population: z.object({ status: z.enum(POPULATION_STATUSES), run_id: z.string().nullable() }),
      recalculation: z.object({
        status: z.enum(['idle', 'pending', 'stopped']).meta({ description: 'stopped: the requester lost authority; the next change requests it again.' }),
        requested_at: z.string().nullable(),
      }),
      stale_recommendations: z.boolean(),
      warnings: z.object({ count: z.number().int().meta({ description: 'How many issues, not how many controls they touch.' }), items: z.array(Warning()) }),
      applicability_summary: z
        .object({
          controls: z.number().int(),
          applicable: z.number().int().meta({ description: 'Controls with applicability y.' }),
          not_applicable: z.number().int(),
          suggested_exclusions: z.number().int(),
          conflicts: z.number().int(),
        })
        .optional(),
      workflow_summary: z.record(z.string(), z.number().int()).optional().meta({ description: 'Controls by workflow state (states with none are left out).' }),
      redacted_fields: z.array(z.string()),
    })
    .meta({ id: 'ProjectHealth' }),
);
export type ProjectHealth = z.infer<ReturnType<typeof ProjectHealth>>;

interface HealthInputs {
  project: StoredProject;
  /** Pending recalculation markers (the system's and the project's). */
  markers: { requested_at: string; stopped?: string }[];
  diagramStatus: string | undefined;
  /** Present only when the caller may see control-level health. */
  summary?: { controls: number; applicable: number; not_applicable: number; suggested_exclusions: number; conflicts: number };
  byState?: Record<string, number>;
  controlLevelRedacted: boolean;
}

export function projectHealth(h: HealthInputs): ProjectHealth {
  const { project } = h;
  const warnings: z.infer<ReturnType<typeof Warning>>[] = [];
  if (project.population_status === 'failed')
    warnings.push({ code: 'population_failed', detail: 'Population failed; start a recovery run with the current setup ETag.' });
  if (h.markers.some((m) => m.stopped))
    warnings.push({ code: 'recalculation_stopped', detail: 'A recalculation stopped because its requester lost authority; recommendations are stale.' });
  if (h.diagramStatus === 'error') warnings.push({ code: 'network_diagram_failed', detail: 'The network diagram was refused by scanning; upload another.' });
  if (h.summary?.conflicts)
    warnings.push({ code: 'applicability_conflicts', detail: 'Some explicit applicability choices differ from the current recommendation.' });
  if (h.summary?.suggested_exclusions) warnings.push({ code: 'suggested_exclusions', detail: 'Recommendations suggest excluding some applicable controls.' });
  const pending = h.markers.filter((m) => !m.stopped);
  const oldest = [...h.markers].map((m) => m.requested_at).sort()[0] ?? null;
  return {
    project_id: project.id,
    lifecycle_state: project.lifecycle_state,
    archived: project.archived,
    population: { status: project.population_status, run_id: project.population_run_id },
    recalculation: { status: pending.length ? 'pending' : h.markers.length ? 'stopped' : 'idle', requested_at: oldest },
    stale_recommendations: h.markers.length > 0,
    warnings: { count: warnings.length, items: warnings },
    ...(h.summary ? { applicability_summary: h.summary } : {}),
    ...(h.byState ? { workflow_summary: h.byState } : {}),
    redacted_fields: h.controlLevelRedacted ? ['applicability_summary', 'workflow_summary'] : [],
  };
}
