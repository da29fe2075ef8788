import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient } from '../../../lib/store/client.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { projectItem, projectsPage, toProject } from '../../../lib/store/projects.js';
import { keys } from '../../../lib/store/keys.js';
import { mockedItems } from '../../support/table-mock.js';
import { buildProject } from '../../support/factories.js';
import { describeCollectionCount, readsStoredEntity } from '../../support/stored-entities.js';
import { projectCount } from '../../../lib/store/projects.js';

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

describe('projectsPage', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const table = mockedItems(ddb);
  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
    table.answer();
  });
  const project = buildProject({ id: PROJECT });
  const entry = { ...keys.systemProject(project.system_id, PROJECT), project_id: PROJECT };

  it("reads the system's entries with their keys, then the projects they name", async () => {
    ddb.on(QueryCommand).resolves({ Items: [entry] });
    table.put(projectItem(project));
    expect(await projectsPage(project.system_id, { number: 1, size: 10 })).toEqual([project]);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.ProjectionExpression).toBe('PK, SK, project_id');
  });

  it('refuses an entry without its project, naming its key', async () => {
    const { project_id: _p, ...unnamed } = entry;
    ddb.on(QueryCommand).resolves({ Items: [unnamed] });
    await expect(projectsPage(project.system_id, { number: 1, size: 10 })).rejects.toThrow(StoredItemInvalid);
    await expect(projectsPage(project.system_id, { number: 1, size: 10 })).rejects.toThrow(`SYSTEM#${project.system_id}|PROJECT#${PROJECT}`);
  });
});

describeCollectionCount("a system's project count", projectCount, {
  counters: keys.systemCounters('S1'),
  name: 'projects',
  neighbour: 'contacts',
  malformed: { what: 'that is fractional', value: 1.5 },
});
