import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { newUlid } from '../../../lib/domain/ids.js';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { joinControl, joinControls } from '../../../lib/store/control-text.js';
import { keys } from '../../../lib/store/keys.js';
import { buildAssertion, buildCatalogueEntry, buildControl } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const entry = buildCatalogueEntry({ statement: 'Keep the network segmented.', classifications: ['P', 'S'] });
const entryItem = { ...keys.catalogueEntry('release', entry.position), entity: 'catalogue-entry', ...entry };

/** A confirmed assertion about the entry's control, stored, and the control's reference to it. */
function asserted() {
  const assertion = buildAssertion({ control_id: entry.id, consumer_guidance: 'Tenants need do nothing further.' });
  return {
    item: { ...keys.assertion(assertion.provider_id, assertion.id), entity: 'assertion', ...assertion },
    reference: { provider_id: assertion.provider_id, release_id: assertion.release_id, assertion_id: assertion.id, restricted: false },
  };
}

/** Each test reads its own catalogue release: the join keeps what it read, by release. */
function catalogue() {
  const releaseId = newUlid();
  ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': keys.catalogueEntry(releaseId, 0).PK, ':sk': 'ENTRY#' } }).resolves({ Items: [entryItem] });
  return releaseId;
}

describe('joinControl', () => {
  it("answers the control with its catalogue entry's statement and classifications", async () => {
    const joined = await joinControl(catalogue(), buildControl({ catalogue_id: entry.id }));
    expect(joined).toMatchObject({ statement: 'Keep the network segmented.', classifications: ['P', 'S'], provider_guidance: [] });
  });

  it('reads the assertions its guidance names in one BatchGetItem, beside the release', async () => {
    const { item, reference } = asserted();
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [item] } });
    const joined = await joinControl(catalogue(), buildControl({ catalogue_id: entry.id, provider_guidance: [reference] }));
    expect(joined.provider_guidance).toEqual([
      {
        ...reference,
        responsibility: 'provider',
        implementation_status: 'implemented',
        guidance: 'Tenants need do nothing further.',
        guidance_truncated: false,
      },
    ]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
  });

  it('keeps what it read: a second read of the control issues no request', async () => {
    const { item, reference } = asserted();
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [item] } });
    const releaseId = catalogue();
    const control = buildControl({ catalogue_id: entry.id, provider_guidance: [reference] });
    await joinControl(releaseId, control);
    const sent = ddb.calls().length;
    await joinControl(releaseId, control);
    expect(ddb.calls()).toHaveLength(sent);
  });

  it('refuses a control whose entry its release lacks', async () => {
    await expect(joinControl(catalogue(), buildControl({ catalogue_id: 'ism-9999' }))).rejects.toThrow(/lacks/);
  });
});

describe('joinControls', () => {
  it("reads each named assurance release's confirmed assertions once, by Query", async () => {
    const { item, reference } = asserted();
    ddb.on(QueryCommand, { ExpressionAttributeValues: { ':pk': keys.externalProvider(reference.provider_id).PK } }).resolves({ Items: [item] });
    const controls = [
      buildControl({ catalogue_id: entry.id, provider_guidance: [reference] }),
      buildControl({ catalogue_id: entry.id, provider_guidance: [reference] }),
    ];
    const joined = await joinControls(catalogue(), controls);
    expect(joined.map((c) => c.provider_guidance[0]?.guidance)).toEqual(['Tenants need do nothing further.', 'Tenants need do nothing further.']);
    const assertionQueries = ddb
      .commandCalls(QueryCommand)
      .filter((c) => c.args[0].input.ExpressionAttributeValues?.[':pk'] === keys.externalProvider(reference.provider_id).PK);
    expect(assertionQueries).toHaveLength(1);
  });
});
