import { newUlid } from '../../../../lib/domain/ids.js';
import { describe, expect, it } from 'vitest';
import type { TokenClaims } from '../../../../lib/auth/tokens.js';
import { authorize } from '../../../../lib/http/middlewares/authorize.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { getOrganisation, listOrganisations, updateOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import { getControl } from '../../../../lib/operations/controls/controls.js';
import { type AccessScope, accessKey, type TokenRecord, type UserRecord } from '../../../../lib/store/identity.js';
import { keys } from '../../../../lib/store/keys.js';
import { type Item, keyString } from '../../../../lib/store/read.js';
import { buildToken, buildUser, storedAccess } from '../../../support/factories.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

/**
 * The authorize step on what the load step read and the authenticate step accepted: the token,
 * its user and the user's live access at the token's scope.
 */
const userId = newUlid();
const organisationId = newUlid();
const projectId = newUlid();

interface Credential {
  token?: Partial<TokenRecord>;
  user?: Partial<UserRecord>;
  /** The user's live permissions at the token's scope; null for no access record at all. */
  access?: string[] | null;
}

function request(operation: unknown, params: Record<string, string>, c: Credential = {}) {
  const token = buildToken({ user_id: userId, organisation_id: organisationId, ...c.token });
  const claims: TokenClaims = { tokenId: token.id, userId, organisationId: token.organisation_id, projectId: token.project_id };
  const scope: AccessScope =
    token.type === 'project'
      ? { kind: 'project', id: token.project_id! }
      : token.type === 'organisation'
        ? { kind: 'organisation', id: organisationId }
        : { kind: 'installation' };
  const items = new Map<string, Item>([
    [keyString(keys.token(token.id)), { ...keys.token(token.id), ...token }],
    [keyString(keys.user(userId)), { ...keys.user(userId), ...buildUser({ id: userId, ...c.user }) }],
  ]);
  if (c.access !== null) items.set(keyString(accessKey(userId, scope)), storedAccess(userId, scope, c.access ?? token.abilities));
  return pipelineRequest({ operation: operation as AnyOperation, state: { claims, items, rawParams: params } });
}

const projectToken: Partial<TokenRecord> = { type: 'project', organisation_id: undefined, project_id: projectId, abilities: ['view-controls'] };
const adminToken: Partial<TokenRecord> = { type: 'administration', organisation_id: undefined, abilities: ['manage-org-hierarchy'] };
const ofOrganisation = { organisation: organisationId };

describe('authorize step', () => {
  it('sets the caller from the token and its user', () => {
    const r = request(getOrganisation, ofOrganisation, { user: { super_user: true } });
    authorize().before!(r);
    const token = r.state.items!.get(keyString(keys.token(r.state.claims!.tokenId)))!;
    expect({ ...r.state.caller!, permissions: [...r.state.caller!.permissions] }).toEqual({
      tokenId: token.id,
      userId,
      type: 'organisation',
      organisationId,
      projectId: undefined,
      readOnly: false,
      permissions: ['manage-org-hierarchy', 'view-projects'],
      superUser: true,
    });
  });

  it('holds only what both the token selected and the user holds live', () => {
    const r = request(getOrganisation, ofOrganisation, { access: ['view-projects'] });
    authorize().before!(r);
    expect([...r.state.caller!.permissions]).toEqual(['view-projects']);
  });

  it('throws 401 for a credential type the operation does not take', async () => {
    expect(await thrownBy(() => authorize().before!(request(getOrganisation, ofOrganisation, { token: projectToken })))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('throws 404 for another organisation than the bound one', async () => {
    expect(await thrownBy(() => authorize().before!(request(getOrganisation, { organisation: newUlid() })))).toMatchObject({ status: 404 });
  });

  it('throws 404 for another project than the bound one', async () => {
    const params = { project: newUlid(), control: newUlid() };
    expect(await thrownBy(() => authorize().before!(request(getControl, params, { token: projectToken })))).toMatchObject({ status: 404 });
  });

  it('takes a project credential on its own project', async () => {
    const params = { project: projectId, control: newUlid() };
    expect(await thrownBy(() => authorize().before!(request(getControl, params, { token: projectToken })))).toBeUndefined();
  });

  it('throws 404 when the user has no access to the bound organisation', async () => {
    expect(await thrownBy(() => authorize().before!(request(getOrganisation, ofOrganisation, { access: null })))).toMatchObject({ status: 404 });
  });

  it('answers an administration credential without installation access as holding nothing (403), not as not found', async () => {
    expect(await thrownBy(() => authorize().before!(request(listOrganisations, {}, { token: adminToken, access: null })))).toMatchObject({
      status: 403,
      code: 'permission_denied',
    });
  });

  it('throws 403 permission_denied when the live permission is missing', async () => {
    expect(await thrownBy(() => authorize().before!(request(updateOrganisation, ofOrganisation, { access: ['view-projects'] })))).toMatchObject({
      status: 403,
      code: 'permission_denied',
    });
  });

  it('throws 403 read_only_credential for a mutation', async () => {
    expect(await thrownBy(() => authorize().before!(request(updateOrganisation, ofOrganisation, { token: { read_only: true } })))).toMatchObject({
      status: 403,
      code: 'read_only_credential',
    });
  });

  it('lets a read-only credential read', async () => {
    expect(await thrownBy(() => authorize().before!(request(getOrganisation, ofOrganisation, { token: { read_only: true } })))).toBeUndefined();
  });

  it('refuses to run before a principal is established', () => {
    const r = pipelineRequest({ operation: getOrganisation as unknown as AnyOperation, state: { rawParams: ofOrganisation } });
    expect(() => authorize().before!(r)).toThrow('pipeline step ran before authentication');
  });
});
