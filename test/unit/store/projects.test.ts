import { describe, expect, it } from 'vitest';
import { toProject } from '../../../lib/store/projects.js';
import { keys } from '../../../lib/store/keys.js';
import { buildProject } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const PROJECT = '01M84T2AZS9C8TZ6EGZG2RXYH3';
const stored = {
  ...keys.project(PROJECT),
  entity: 'project',
  ...buildProject({ id: PROJECT, control_workflow: { edit_approval: true, assessment_approval: false }, version: 3 }),
  engagement_version: 2,
};

describe('a stored project', () => {
  readsStoredEntity(toProject, stored, { lifecycle_state: 'closed' });

  it('reads without workflow settings when created before there were any', () => {
    const { control_workflow: _w, ...older } = stored;
    expect(toProject(older).control_workflow).toBeUndefined();
  });
});
