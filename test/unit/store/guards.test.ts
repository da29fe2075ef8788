import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { evidenceItem } from '../../../lib/store/evidence.js';
import { keys } from '../../../lib/store/keys.js';
import { keyString } from '../../../lib/store/read.js';
import { buildUploadEvidence } from '../../support/factories.js';
import {
  controlStillInState,
  fileStillReady,
  itemUnchanged,
  projectAccessStillHolds,
  projectControlsEditable,
  projectNotArchived,
  releaseIsDraft,
  releaseStillDraft,
  tokenStillGrants,
  uploadNotRecorded,
  userStillActive,
} from '../../../lib/store/guards.js';
import { commit, type WriteItem } from '../../../lib/store/transact.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(TransactWriteCommand).resolves({});
});

const failed = () => new Error('guard failed');

/** The transaction item a guard contributes, as the table receives it. */
async function sent(guard: WriteItem) {
  await commit([guard]);
  return ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0];
}

const checkOf = (Key: Record<string, string>, ConditionExpression: string, names: Record<string, string>, values?: Record<string, unknown>) => ({
  ConditionCheck: {
    TableName: tableName(),
    Key,
    ConditionExpression,
    ExpressionAttributeNames: names,
    ...(values ? { ExpressionAttributeValues: values } : {}),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

describe('project guards', () => {
  it('projectNotArchived checks that the project is not archived', async () => {
    expect(await sent(projectNotArchived('P1', failed))).toEqual(
      checkOf({ PK: 'PROJECT#P1', SK: 'PROJECT' }, '#cnd0 = :cnd0', { '#cnd0': 'archived' }, { ':cnd0': false }),
    );
  });

  it('projectControlsEditable checks that the project is active and not archived', async () => {
    expect(await sent(projectControlsEditable('P1', undefined, failed))).toEqual(
      checkOf(
        { PK: 'PROJECT#P1', SK: 'PROJECT' },
        '(#cnd0 = :cnd0) AND (#cnd1 = :cnd1)',
        { '#cnd0': 'lifecycle_state', '#cnd1': 'archived' },
        { ':cnd0': 'active', ':cnd1': false },
      ),
    );
  });

  it('projectControlsEditable also checks a workflow setting as read, accepting it absent when the value is its default', async () => {
    expect(await sent(projectControlsEditable('P1', { setting: 'edit_approval', is: false, isDefault: true }, failed))).toEqual(
      checkOf(
        { PK: 'PROJECT#P1', SK: 'PROJECT' },
        '(#cnd0 = :cnd0) AND (#cnd1 = :cnd1) AND (attribute_not_exists(#cnd2.#cnd3) OR #cnd2.#cnd3 = :cnd2)',
        { '#cnd0': 'lifecycle_state', '#cnd1': 'archived', '#cnd2': 'control_workflow', '#cnd3': 'edit_approval' },
        { ':cnd0': 'active', ':cnd1': false, ':cnd2': false },
      ),
    );
  });

  it('itemUnchanged checks the version read', async () => {
    expect(await sent(itemUnchanged({ PK: 'PROJECT#P1', SK: 'DIAGRAM' }, 3, failed))).toEqual(
      checkOf({ PK: 'PROJECT#P1', SK: 'DIAGRAM' }, '#cnd0 = :cnd0', { '#cnd0': 'version' }, { ':cnd0': 3 }),
    );
  });

  it('itemUnchanged at version 0 checks that the item is still absent', async () => {
    expect(await sent(itemUnchanged({ PK: 'PROJECT#P1', SK: 'DIAGRAM' }, 0, failed))).toEqual(
      checkOf({ PK: 'PROJECT#P1', SK: 'DIAGRAM' }, 'attribute_not_exists(#cnd0)', { '#cnd0': 'PK' }),
    );
  });
});

describe('control and evidence guards', () => {
  it('controlStillInState checks the workflow state read', async () => {
    expect(await sent(controlStillInState('P1', 'C1', 'implementing', failed))).toEqual(
      checkOf({ PK: 'PROJECT#P1', SK: 'CONTROL#C1' }, '#cnd0 = :cnd0', { '#cnd0': 'workflow_state' }, { ':cnd0': 'implementing' }),
    );
  });

  it('fileStillReady checks that the evidence item is still a ready upload of the same file', async () => {
    expect(await sent(fileStillReady({ project_id: 'P1', control_id: 'C2', id: 'E1', upload_id: 'U1' }, failed))).toEqual(
      checkOf(
        { PK: 'PROJECT#P1', SK: 'EVIDENCE#C2#E1' },
        '(#cnd0 = :cnd0) AND (#cnd1 = :cnd1) AND (#cnd2 = :cnd2)',
        { '#cnd0': 'kind', '#cnd1': 'file_status', '#cnd2': 'upload_id' },
        { ':cnd0': 'upload', ':cnd1': 'ready', ':cnd2': 'U1' },
      ),
    );
  });

  describe('fileStillReady refusals', () => {
    const upload = buildUploadEvidence({ upload_id: 'U1', file_status: 'error' });
    const guard = fileStillReady({ ...upload, upload_id: 'U1' }, (current) => new Error(current ? String(current.file_status) : 'gone'));
    const refusal = (current: Record<string, unknown> | undefined) => guard.onConditionFailed!(current);

    it('are decided from the evidence item as it is now, read with its schema', () => {
      expect(refusal(evidenceItem(upload)).message).toBe('error');
    });

    it('are decided without one when the evidence item is gone', () => {
      expect(refusal(undefined).message).toBe('gone');
    });

    it('refuse an evidence item that fails its schema, naming its key', () => {
      const broken = () => refusal({ ...evidenceItem(upload), kind: 'parcel' });
      expect(broken).toThrow(StoredItemInvalid);
      expect(broken).toThrow(keyString(keys.evidence(upload.project_id, upload.control_id, upload.id)));
    });
  });
});

describe('authority guards', () => {
  it('tokenStillGrants checks that the credential exists, is unexpired now and selects every ability', async () => {
    expect(await sent(tokenStillGrants('T1', new Date('2026-11-27T00:00:00Z'), ['view-controls', 'edit-control-implementation'], failed))).toEqual(
      checkOf(
        { PK: 'TOKEN#T1', SK: 'TOKEN' },
        '(attribute_exists(#cnd0)) AND (#cnd1 > :cnd0) AND (contains(#cnd2, :cnd1) AND contains(#cnd2, :cnd2))',
        { '#cnd0': 'PK', '#cnd1': 'expires_at', '#cnd2': 'abilities' },
        { ':cnd0': '2026-11-27T00:00:00.000Z', ':cnd1': 'view-controls', ':cnd2': 'edit-control-implementation' },
      ),
    );
  });

  it('userStillActive checks the user status', async () => {
    expect(await sent(userStillActive('U1', failed))).toEqual(
      checkOf({ PK: 'USER#U1', SK: 'PROFILE' }, '#cnd0 = :cnd0', { '#cnd0': 'status' }, { ':cnd0': 'active' }),
    );
  });

  it('projectAccessStillHolds checks that the access holds every permission', async () => {
    expect(await sent(projectAccessStillHolds('U1', 'P1', ['view-controls'], failed))).toEqual(
      checkOf({ PK: 'USER#U1', SK: 'ACCESS#PROJECT#P1' }, 'contains(#cnd0, :cnd0)', { '#cnd0': 'permissions' }, { ':cnd0': 'view-controls' }),
    );
  });
});

describe('release and upload guards', () => {
  it('releaseStillDraft checks that the release is a draft', async () => {
    expect(await sent(releaseStillDraft('PR1', 'R1', failed))).toEqual(
      checkOf({ PK: 'PROVIDER#PR1', SK: 'RELEASE#R1' }, '#cnd0 = :cnd0', { '#cnd0': 'status' }, { ':cnd0': 'draft' }),
    );
  });

  it('releaseIsDraft with an ISM release also conditions the write on that release', async () => {
    const guarded: WriteItem = {
      kind: 'delete',
      key: { PK: 'PROVIDER#PR1', SK: 'RELEASE#R1' },
      condition: releaseIsDraft('ISM-2026'),
      onConditionFailed: failed,
    };
    expect(await sent(guarded)).toEqual({
      Delete: {
        TableName: tableName(),
        Key: { PK: 'PROVIDER#PR1', SK: 'RELEASE#R1' },
        ConditionExpression: '(#cnd0 = :cnd0) AND (#cnd1 = :cnd1)',
        ExpressionAttributeNames: { '#cnd0': 'status', '#cnd1': 'ism_version_id' },
        ExpressionAttributeValues: { ':cnd0': 'draft', ':cnd1': 'ISM-2026' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
  });

  it('uploadNotRecorded checks that the upload record is absent', async () => {
    expect(await sent(uploadNotRecorded('U9', failed))).toEqual(checkOf({ PK: 'UPLOAD#U9', SK: 'UPLOAD' }, 'attribute_not_exists(#cnd0)', { '#cnd0': 'PK' }));
  });
});
