import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../lib/domain/ids.js';
import { parseToken } from '../../lib/auth/tokens.js';
import { acceptUpload } from '../../lib/files/accept.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { commit } from '../../lib/store/transact.js';
import type { fixtures } from './api.js';

/** An upload by `op` in quarantine whose owner shows it, as the logo operation leaves it (from a session's object when given). */
export async function quarantinedUpload(op: Awaited<ReturnType<typeof fixtures.operator>>, bytes: Buffer, fileName = 'f.png', session?: { id: string }) {
  const owner = { PK: `TESTOWNER#${newUlid()}`, SK: 'OWNER' };
  const { upload, writes } = await acceptUpload({
    profile: 'organisation-logo',
    owner,
    organisationId: op.organisationId,
    userId: op.userId,
    tokenId: parseToken(op.org)!.tokenId,
    authority: { scope: { kind: 'organisation', id: op.organisationId }, permissions: ['manage-org-hierarchy'] },
    file: { file_name: fileName, declared_type: 'image/png', bytes },
    ...(session ? { session } : {}),
    now: new Date(),
  });
  await commit(writes);
  await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...owner, upload_id: upload.id, file_status: upload.status, version: 1 } }));
  return { upload, owner };
}
