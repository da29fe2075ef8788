import { describe, expect, it } from 'vitest';
import { toProject } from '../../../lib/store/projects.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const PROJECT = '01M84T2AZS9C8TZ6EGZG2RXYH3';
const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.project(PROJECT),
  entity: 'project',
  id: PROJECT,
  organisation_id: '01M84T2AZS9C8TZ6EGZG2RXYH0',
  system_id: '01M84T2AZS9C8TZ6EGZG2RXYH1',
  name: 'Assessment',
  description: null,
  ism_release_id: '01M84T2AZS9C8TZ6EGZG2RXYH4',
  ism_release_version: '2025.03.1',
  classification: 'P',
  essential_eight_target: 'ML2',
  lifecycle_state: 'active',
  archived: false,
  population_run_id: null,
  population_status: 'completed',
  control_workflow: { edit_approval: true, assessment_approval: false },
  created_at: AT,
  created_by: 'u',
  updated_at: AT,
  version: 3,
  engagement_version: 2,
};

describe('a stored project', () => {
  readsStoredEntity(toProject, stored, { lifecycle_state: 'closed' });

  it('reads without workflow settings when created before there were any', () => {
    const { control_workflow: _w, ...older } = stored;
    expect(toProject(older).control_workflow).toBeUndefined();
  });
});
