import { describe, expect, it } from 'vitest';
import { projectHealth } from '../../../lib/domain/health.js';
import { buildProject } from '../../support/factories.js';

const project = buildProject();
const quiet = { project, markers: [], diagramStatus: undefined, controlLevelRedacted: false };
const summary = { controls: 10, applicable: 8, not_applicable: 2, suggested_exclusions: 0, conflicts: 0 };
const codes = (h: ReturnType<typeof projectHealth>) => h.warnings.items.map((w) => w.code);

describe('projectHealth', () => {
  it('reports an idle, fresh project without warnings', () => {
    expect(projectHealth(quiet)).toMatchObject({
      project_id: project.id,
      recalculation: { status: 'idle', requested_at: null },
      stale_recommendations: false,
      warnings: { count: 0, items: [] },
      redacted_fields: [],
    });
  });

  it('warns of a failed population', () => {
    expect(codes(projectHealth({ ...quiet, project: { ...project, population_status: 'failed' } }))).toEqual(['population_failed']);
  });

  it('reports a pending recalculation from its oldest marker, with recommendations stale', () => {
    const markers = [{ requested_at: '2026-01-02T00:00:00.000Z' }, { requested_at: '2026-01-01T00:00:00.000Z' }];
    expect(projectHealth({ ...quiet, markers })).toMatchObject({
      recalculation: { status: 'pending', requested_at: '2026-01-01T00:00:00.000Z' },
      stale_recommendations: true,
    });
  });

  it('reports a recalculation stopped when every marker stopped, and warns of it', () => {
    const health = projectHealth({ ...quiet, markers: [{ requested_at: '2026-01-01T00:00:00.000Z', stopped: 'authority' }] });
    expect([health.recalculation.status, codes(health)]).toEqual(['stopped', ['recalculation_stopped']]);
  });

  it('counts issues, not controls: conflicts, suggested exclusions and a refused diagram are one warning each', () => {
    const health = projectHealth({ ...quiet, diagramStatus: 'error', summary: { ...summary, conflicts: 4, suggested_exclusions: 3 } });
    expect(codes(health)).toEqual(['network_diagram_failed', 'applicability_conflicts', 'suggested_exclusions']);
    expect(health.warnings.count).toBe(3);
  });

  it('shows the control-level summaries when given, and names them redacted when the caller may not see them', () => {
    expect(projectHealth({ ...quiet, summary, byState: { editing: 10 } })).toMatchObject({ applicability_summary: summary, workflow_summary: { editing: 10 } });
    const redacted = projectHealth({ ...quiet, controlLevelRedacted: true });
    expect([redacted.applicability_summary, redacted.redacted_fields]).toEqual([undefined, ['applicability_summary', 'workflow_summary']]);
  });
});
