import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, onTableWrite, tableName, traceDdb } from '../../lib/store/client.js';
import { createUser, EmailTakenError, grantAccess, livePermissions, revokeAccess, setUserStatus } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { createOrganisationWrites, organisationsByIds, visibleOrganisationIds } from '../../lib/store/organisations.js';
import { countHits, uncountHits } from '../../lib/store/rate-limits.js';
import { getMany, getOne, queryPage } from '../../lib/store/read.js';
import { receiptWrite, ReceiptRaceError } from '../../lib/store/receipts.js';
import { ensureTable } from '../../lib/store/schema.js';
import { commit } from '../../lib/store/transact.js';
import { buildOrganisation } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

const org = (createdBy: string, slug?: string) => buildOrganisation({ created_by: createdBy, ...(slug && { slug }) });
const fail = (message: string) => () => new Error(message);

describe('table bootstrap', () => {
  it('is idempotent', async () => {
    await ensureTable();
    await ensureTable();
  });
});

describe('table write listeners', () => {
  it('hear each write of this process, and no read, until they unsubscribe', async () => {
    let heard = 0;
    const unsubscribe = onTableWrite(() => heard++);
    const key = { PK: `LISTEN#${newUlid()}`, SK: 'A' };
    await ddb().send(new PutCommand({ TableName: tableName(), Item: key }));
    await commit([{ kind: 'delete', key }]);
    await getOne(key);
    unsubscribe();
    await ddb().send(new PutCommand({ TableName: tableName(), Item: key }));
    expect(heard).toBe(2);
  });
});

describe('identity store', () => {
  it('refuses a second user with the same email, whatever its case', async () => {
    const email = `${newUlid().toLowerCase()}@x.test`;
    await createUser({ email, name: 'A', superUser: false }, new Date());
    await expect(createUser({ email: email.toUpperCase(), name: 'B', superUser: false }, new Date())).rejects.toBeInstanceOf(EmailTakenError);
  });

  it('reports a status change of a missing user as not done', async () => {
    expect(await setUserStatus(newUlid(), 'disabled')).toBe(false);
  });

  it('replaces live permissions on a new grant and forgets them on revoke', async () => {
    const userId = newUlid();
    const scope = { kind: 'organisation', id: newUlid() } as const;
    await grantAccess(userId, scope, ['view-projects', 'view-contacts'], new Date());
    await grantAccess(userId, scope, ['view-contacts'], new Date());
    expect([...(await livePermissions(userId, scope))!]).toEqual(['view-contacts']);
    expect(await revokeAccess(userId, scope)).toBe(true);
    expect(await livePermissions(userId, scope)).toBeUndefined();
  });
});

describe('organisation writes', () => {
  it('refuse a slug another organisation holds', async () => {
    const first = org(newUlid());
    await commit(createOrganisationWrites(first, 1_000, fail('limit'), fail('slug')));
    await expect(commit(createOrganisationWrites(org(newUlid(), first.slug), 1_000, fail('limit'), fail('slug')))).rejects.toThrow('slug');
  });

  it('refuse an organisation beyond the licence limit and leave nothing behind', async () => {
    // A table of its own: the licence counter is installation-wide.
    await useTestServices();
    const creator = newUlid();
    await commit(createOrganisationWrites(org(creator), 1, fail('limit'), fail('slug')));
    const refused = org(creator);
    await expect(commit(createOrganisationWrites(refused, 1, fail('limit'), fail('slug')))).rejects.toThrow('limit');
    expect(await getOne(keys.organisation(refused.id))).toBeUndefined();
    expect(await getOne(keys.organisationSlug(refused.slug))).toBeUndefined();
  });

  it('make an organisation visible to its creator, oldest first', async () => {
    const creator = newUlid();
    const a = org(creator);
    await commit(createOrganisationWrites(a, 1_000, fail('limit'), fail('slug')));
    const b = org(creator);
    await commit(createOrganisationWrites(b, 1_000, fail('limit'), fail('slug')));
    const ids = await visibleOrganisationIds(creator);
    expect(ids).toEqual([a.id, b.id]);
    expect((await organisationsByIds(ids)).map((o) => o.id)).toEqual([a.id, b.id]);
  });
});

describe('receipts', () => {
  const scope = { userId: newUlid(), tokenId: 'T', operationId: 'op', target: 'op', payloadHash: 'h' };

  it('refuse a second receipt under the same key while the first is live', async () => {
    const now = Math.floor(Date.now() / 1000);
    await commit([receiptWrite(scope, 'd1', { status: 201, data: {} }, now)]);
    await expect(commit([receiptWrite(scope, 'd1', { status: 201, data: {} }, now)])).rejects.toBeInstanceOf(ReceiptRaceError);
  });

  it('let a key be used again once its receipt has expired, before TTL removes it', async () => {
    const then = Math.floor(Date.now() / 1000) - 25 * 3600;
    await commit([receiptWrite(scope, 'd2', { status: 201, data: { n: 1 } }, then)]);
    await commit([receiptWrite(scope, 'd2', { status: 201, data: { n: 2 } }, Math.floor(Date.now() / 1000))]);
    expect((await getOne(keys.receipt(scope.userId, 'd2')))!.response).toEqual({ status: 201, data: { n: 2 } });
  });
});

describe('reads', () => {
  it('batch-reads more than 100 keys, once each', async () => {
    const pk = `BULK#${newUlid()}`;
    for (let i = 0; i < 130; i++) await ddb().send(new PutCommand({ TableName: tableName(), Item: { PK: pk, SK: String(i).padStart(3, '0') } }));
    const wanted = Array.from({ length: 130 }, (_, i) => ({ PK: pk, SK: String(i).padStart(3, '0') }));
    const found = await getMany([...wanted, ...wanted.slice(0, 5)]);
    expect(found.size).toBe(130);
  });

  it('reads page 3 of a query in index order', async () => {
    const pk = `PAGE#${newUlid()}`;
    for (let i = 0; i < 12; i++) await ddb().send(new PutCommand({ TableName: tableName(), Item: { PK: pk, SK: String(i).padStart(2, '0') } }));
    const page = await queryPage({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }, { number: 3, size: 5 });
    expect(page.map((i) => i.SK)).toEqual(['10', '11']);
  });
});

describe('rate-limit counters', () => {
  it('count parallel hits exactly, for the actor and each credential in its item', async () => {
    const subject = newUlid();
    const credentials = [newUlid(), newUlid()];
    const now = new Date();
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        countHits({ budget: 'read-actor', subject, nested: [{ budget: 'read-credential', subject: credentials[i % 2]! }] }, now),
      ),
    );
    const sorted = (budget: string) => results.map((r) => r.find((c) => c.budget === budget)!.count).sort((a, b) => a - b);
    expect(sorted('read-actor')).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(sorted('read-credential')).toEqual(Array.from({ length: 12 }, (_, i) => [i + 1, i + 1]).flat());
  });

  it('take back a hit in the window it was counted in', async () => {
    const hit = { budget: 'read-organisation', subject: newUlid() };
    const now = new Date();
    await countHits(hit, now);
    await countHits(hit, now);
    await uncountHits(hit, now);
    expect((await countHits(hit, now))[0]!.count).toBe(2);
  });
});

describe('trace', () => {
  it('records each DynamoDB request with consumed capacity', async () => {
    const { calls } = await traceDdb(() => getOne(keys.user(newUlid())));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ command: 'GetItem' });
    expect(calls[0]!.rcu).toBeGreaterThan(0);
  });
});
