import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlannedControl } from '../../../lib/domain/applicability.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import {
  attentionKeys,
  attentionList,
  controlIndexItem,
  controlItem,
  controlList,
  controlsAt,
  controlsPage,
  asProjectSummary,
  countsBy,
  summaryCount,
  newControlItem,
  projectApplicability,
  stripCopiedText,
  summaryItem,
} from '../../../lib/store/controls.js';
import { indexEntries } from '../../../lib/store/control-filters.js';
import { LIST_FIELDS } from '../../../lib/domain/controls.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import { controlId, controlPositionKey } from '../../../lib/store/projects.js';
import { buildCatalogueEntry, buildControl } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const PROJECT = '01M84T2AZS9C8TZ6EGZG2RXYH3';
const RUN = '01M84T2AZS9C8TZ6EGZG2RXYH9';
const NOW = new Date('2026-11-27T00:00:00.000Z');
const exclusion = { value: 'n' as const, rules: ['R1'], reasons: ['No wireless networks.'] };
const inputs = <T>(command: new (input: T) => unknown) => ddb.commandCalls(command as never).map((c) => c.args[0].input);
const conditionFailed = () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });

/** The projection every list read asks for: the keys and the list fields, by placeholder. */
const listProjection = {
  ProjectionExpression: ['PK', 'SK', ...LIST_FIELDS.map((_, i) => `#f${i}`)].join(', '),
  ExpressionAttributeNames: Object.fromEntries(LIST_FIELDS.map((f, i) => [`#f${i}`, f])),
};

/** A control of the project at a catalogue position, as population names it. */
const controlAt = (position: number) => {
  const entry = buildCatalogueEntry({ position });
  return buildControl({ id: controlId(PROJECT, position, entry.id), project_id: PROJECT, position });
};

/** What a list read answers for a control: its keys and its list fields. */
const listed = (c: ReturnType<typeof controlAt>) => ({
  ...keys.control(PROJECT, c.id),
  ...Object.fromEntries(LIST_FIELDS.flatMap((f) => (f in c ? [[f, c[f as keyof typeof c]]] : []))),
});

describe('newControlItem', () => {
  const entry = buildCatalogueEntry({ position: 4 });
  const planned: PlannedControl = { entry, applicability: 'y', origin: 'default_inclusion', recommendation: null };
  const id = controlId(PROJECT, 4, entry.id);

  it('writes the catalogue placing, the applicability and the run, with nothing decided by people', () => {
    expect(newControlItem({ id: PROJECT }, planned, RUN, NOW)).toEqual({
      ...keys.control(PROJECT, id),
      entity: 'control',
      id,
      project_id: PROJECT,
      catalogue_id: entry.id,
      label: entry.label,
      kind: 'control',
      title: entry.title,
      path: entry.path,
      position: 4,
      essential_eight: [],
      applicability: 'y',
      applicability_origin: 'default_inclusion',
      applicability_comment: null,
      recommendation: null,
      recommendation_at: NOW.toISOString(),
      implementation_status: null,
      implementation_status_origin: null,
      provider_guidance: [],
      implementation_description: null,
      implementation_summary: null,
      workflow_state: 'editing',
      population_run_id: RUN,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
      version: 1,
    });
  });

  it('leaves the catalogue entry text out, for reads to join', () => {
    const item = newControlItem({ id: PROJECT }, planned, RUN, NOW);
    expect(['statement', 'classifications', 'revision'].filter((a) => a in item)).toEqual([]);
  });

  it('takes the status and guidance of a confirmed provider assertion', () => {
    const guidance = [{ provider_id: 'P1', release_id: 'R1', assertion_id: 'A1', restricted: false }];
    expect(newControlItem({ id: PROJECT }, planned, RUN, NOW, { guidance, inherited: true })).toMatchObject({
      implementation_status: 'ec',
      implementation_status_origin: 'provider_assertion',
      provider_guidance: guidance,
    });
  });

  it('indexes an applicable control that the rules suggest excluding', () => {
    expect(newControlItem({ id: PROJECT }, { ...planned, recommendation: exclusion }, RUN, NOW)).toMatchObject({
      GSI1PK: gsi1.controlAttention(PROJECT, 'suggested_exclusion'),
      GSI1SK: controlPositionKey(4),
    });
  });
});

describe('attentionKeys', () => {
  it('places a control in conflict with its recommendation under the conflict partition, by position', () => {
    const c = { applicability: 'y' as const, applicability_origin: 'explicit_user_choice' as const, recommendation: exclusion, position: 7 };
    expect(attentionKeys(PROJECT, c)).toEqual({ GSI1PK: gsi1.controlAttention(PROJECT, 'conflict'), GSI1SK: controlPositionKey(7) });
  });

  it('gives no keys to a control that needs no attention', () => {
    expect(attentionKeys(PROJECT, { applicability: 'y', applicability_origin: 'default_inclusion', recommendation: null, position: 7 })).toEqual({});
  });
});

describe('controlItem', () => {
  it('stores the control under its project with its attention keys', () => {
    const c = buildControl({ project_id: PROJECT, recommendation: exclusion, position: 2 });
    expect(controlItem(c)).toEqual({
      ...keys.control(PROJECT, c.id),
      entity: 'control',
      ...c,
      GSI1PK: gsi1.controlAttention(PROJECT, 'suggested_exclusion'),
      GSI1SK: controlPositionKey(2),
    });
  });
});

describe('projectApplicability', () => {
  const projection =
    'PK, SK, id, catalogue_id, label, #t, essential_eight, implementation_status, #pos, #p, applicability, applicability_origin, recommendation, workflow_state, overall_assessed_outcome, #v, GSI1PK';
  const query = (ProjectionExpression: string) => ({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(PROJECT).PK, ':sk': 'CONTROL#' },
    ExpressionAttributeNames: { '#p': 'path', '#pos': 'position', '#v': 'version', '#t': 'title' },
    ProjectionExpression,
    ConsistentRead: true,
  });

  it('reads the keys and flags of every control of the project, consistently', async () => {
    const c = controlAt(0);
    ddb.on(QueryCommand).resolves({ Items: [controlItem(c)] });
    const [read] = await projectApplicability(PROJECT);
    expect(inputs(QueryCommand)).toEqual([query(projection)]);
    expect(read).toMatchObject({ id: c.id, applicability: 'y', workflow_state: 'editing', version: 1 });
  });

  it('reads the provider-owned fields too when asked', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    await projectApplicability(PROJECT, { provider: true });
    expect(inputs(QueryCommand)).toEqual([query(`${projection}, implementation_status_origin, provider_guidance`)]);
  });
});

describe('countsBy', () => {
  it('reads the counters of one prefix, without the prefix, leaving out those at zero', () => {
    expect(
      countsBy(
        asProjectSummary({ ...keys.projectSummary(PROJECT), controls: 3, state_editing: 2, state_review: 1, state_approved: 0, impl_implemented: 1 }),
        'state_',
      ),
    ).toEqual({ editing: 2, review: 1 });
  });

  it('is empty without a stored summary', () => {
    expect(countsBy(undefined, 'state_')).toEqual({});
  });
});

describe('a stored project summary', () => {
  const summary = summaryItem(PROJECT, [controlAt(0)], '2026-11-22T10:00:00.000Z', 4);

  it('reads its counters, revision and count time, without its keys', () => {
    const { PK: _pk, SK: _sk, entity: _e, ...value } = summary;
    expect(asProjectSummary(summary)).toEqual(value);
  });

  it('reads a counter no control moved yet, and every counter before population, as 0', () => {
    expect([
      summaryCount(asProjectSummary(summary), 'conflicts'),
      summaryCount(asProjectSummary(summary), 'state_review'),
      summaryCount(undefined, 'controls'),
    ]).toEqual([0, 0, 0]);
  });

  it('refuses a counter that is not a number, naming its key', () => {
    expect(() => asProjectSummary({ ...summary, applicable: '3' })).toThrow(`${summary.PK}|${summary.SK}`);
  });
});

describe('summaryItem and controlIndexItem', () => {
  const controls = [controlAt(0), { ...controlAt(1), applicability: 'n' as const, applicability_origin: 'classification_exclusion' as const }];

  it('writes the absolute summary of the controls at the given revision', () => {
    expect(summaryItem(PROJECT, controls, NOW.toISOString(), 3)).toEqual({
      ...keys.projectSummary(PROJECT),
      entity: 'project-summary',
      controls: 2,
      applicable: 1,
      not_applicable: 1,
      suggested_exclusions: 0,
      conflicts: 0,
      state_editing: 2,
      impl_not_set: 2,
      outcome_not_assessed: 2,
      revision: 3,
      calculated_at: NOW.toISOString(),
    });
  });

  it('writes the control index of the controls, with their count', () => {
    expect(controlIndexItem(PROJECT, controls, NOW.toISOString())).toEqual({
      ...keys.projectControlIndex(PROJECT),
      entity: 'project-control-index',
      entries: indexEntries(controls),
      count: 2,
      written_at: NOW.toISOString(),
    });
  });
});

describe('list reads', () => {
  const controls = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(controlAt);
  const positions = controls.map((c) => controlPositionKey(c.position));
  const prefix = `CONTROL#${PROJECT.slice(0, 10)}`;
  const between = (from: number, to: number) => ({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.project(PROJECT).PK, ':from': `${prefix}${positions[from]}`, ':to': `${prefix}${positions[to]}~` },
    ...listProjection,
  });

  it('controlsAt reads runs of wanted positions in one range each and keeps only the wanted controls', async () => {
    ddb.on(QueryCommand, between(0, 2)).resolves({ Items: controls.slice(0, 3).map(listed) });
    ddb.on(QueryCommand, between(8, 8)).resolves({ Items: [listed(controls[8]!)] });
    const read = await controlsAt(PROJECT, positions, [positions[0]!, positions[2]!, positions[8]!]);
    expect(inputs(QueryCommand)).toEqual([between(0, 2), between(8, 8)]);
    expect(read.map((c) => c.position)).toEqual([0, 2, 8]);
  });

  it('controlsPage reads the page as one key range of the index positions', async () => {
    ddb.on(QueryCommand).resolves({ Items: controls.slice(4, 8).map(listed) });
    const page = await controlsPage(PROJECT, { positions }, { number: 2, size: 4 });
    expect(inputs(QueryCommand)).toEqual([between(4, 7)]);
    expect(page.map((c) => c.id)).toEqual(controls.slice(4, 8).map((c) => c.id));
  });

  it('controlsPage ends at the last position on a short last page', async () => {
    ddb.on(QueryCommand).resolves({ Items: controls.slice(8).map(listed) });
    await controlsPage(PROJECT, { positions }, { number: 3, size: 4 });
    expect(inputs(QueryCommand)).toEqual([between(8, 9)]);
  });

  it('controlsPage reads nothing for a page beyond the controls', async () => {
    expect(await controlsPage(PROJECT, { positions }, { number: 4, size: 4 })).toEqual([]);
    expect(inputs(QueryCommand)).toEqual([]);
  });

  it('attentionList reads one kind of attention from the sparse index', async () => {
    ddb.on(QueryCommand).resolves({ Items: [listed(controls[3]!)] });
    const read = await attentionList(PROJECT, 'conflict');
    expect(inputs(QueryCommand)).toEqual([
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': gsi1.controlAttention(PROJECT, 'conflict') },
        ...listProjection,
      },
    ]);
    expect(read.map((c) => c.id)).toEqual([controls[3]!.id]);
  });

  it('controlList reads every control of the project with the list fields', async () => {
    ddb.on(QueryCommand).resolves({ Items: controls.map(listed) });
    const read = await controlList(PROJECT);
    expect(inputs(QueryCommand)).toEqual([
      {
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': keys.project(PROJECT).PK, ':sk': 'CONTROL#' },
        ...listProjection,
      },
    ]);
    expect(read).toHaveLength(10);
  });
});

describe('stripCopiedText', () => {
  const control = buildControl({ project_id: PROJECT, version: 4 });
  const key = keys.control(PROJECT, control.id);
  // What population wrote before issue 25: the catalogue entry's text copied onto the control.
  const legacy = { ...controlItem(control), statement: 'Do the thing.', classifications: ['P'] };
  const removal = (version: number) => ({
    TableName: tableName(),
    Key: key,
    UpdateExpression: 'REMOVE #rm0, #rm1',
    ConditionExpression: '#cnd0 = :cnd0',
    ExpressionAttributeNames: { '#rm0': 'statement', '#rm1': 'classifications', '#cnd0': 'version' },
    ExpressionAttributeValues: { ':cnd0': version },
  });

  it('removes the copies on the version read, without moving it', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await stripCopiedText(legacy)).toBe(true);
    expect(inputs(UpdateCommand)).toEqual([removal(4)]);
  });

  it('keeps only the references of provider guidance that also held the assertion words', async () => {
    const reference = { provider_id: 'P1', release_id: 'R1', assertion_id: 'A1', restricted: false };
    ddb.on(UpdateCommand).resolves({});
    expect(await stripCopiedText({ ...controlItem(control), provider_guidance: [{ ...reference, implementation_statement: 'Done.' }] })).toBe(true);
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #set0 = :set0 REMOVE #rm0, #rm1',
        ConditionExpression: '#cnd0 = :cnd0',
        ExpressionAttributeNames: { '#set0': 'provider_guidance', '#rm0': 'statement', '#rm1': 'classifications', '#cnd0': 'version' },
        ExpressionAttributeValues: { ':set0': [reference], ':cnd0': 4 },
      },
    ]);
  });

  it('reads the control again after an edit landed first, and strips the version it finds', async () => {
    ddb.on(UpdateCommand, removal(4)).rejects(conditionFailed());
    ddb.on(UpdateCommand, removal(5)).resolves({});
    ddb.on(GetCommand).resolves({ Item: { ...legacy, version: 5 } });
    expect(await stripCopiedText(legacy)).toBe(true);
    expect(inputs(GetCommand)).toEqual([{ TableName: tableName(), Key: key, ConsistentRead: true }]);
    expect(inputs(UpdateCommand)).toEqual([removal(4), removal(5)]);
  });

  it('writes no more once an edit that landed first has written the control without the copies', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand).resolves({ Item: { ...controlItem(control), version: 5 } });
    expect(await stripCopiedText(legacy)).toBe(false);
    expect(inputs(UpdateCommand)).toEqual([removal(4)]);
  });

  it('writes nothing for a control without copies', async () => {
    expect(await stripCopiedText(controlItem(control))).toBe(false);
    expect(inputs(UpdateCommand)).toEqual([]);
  });

  it('gives up after five attempts on a control that keeps changing', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand).resolves({ Item: legacy });
    expect(await stripCopiedText(legacy)).toBe(false);
    expect(inputs(UpdateCommand)).toHaveLength(5);
  });
});
