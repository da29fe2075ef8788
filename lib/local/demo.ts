import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newUlid } from '../domain/ids.js';
import { issueToken } from '../auth/issue.js';
import { tokenHashSecret } from '../auth/secret.js';
import { verifiedClaims } from '../auth/tokens.js';
import { reEnrolAs } from '../auth/administration.js';
import { consoleConfig, enrolmentUrl } from '../console/config.js';
import { CATALOGUE, CONSOLE_PERMISSIONS, permissionsOf } from '../domain/permissions.js';
import { demoMarker, recordDemo } from '../store/demo.js';
import { createUser, getUser, grantAccess } from '../store/identity.js';
import { commit } from '../store/transact.js';
import { createOrganisationWrites, newOrganisation } from '../store/organisations.js';
import { forbidden } from '../errors.js';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../catalogue/files.js';
import { importRelease, listReleases } from '../catalogue/store.js';

/** A first start with no catalogue loads the sample one, so that projects can be set up at once. Returns its version when loaded. */
export async function ensureCatalogue(now: Date): Promise<string | undefined> {
  if ((await listReleases()).length > 0) return undefined;
  return (await importRelease(readReleaseDirectory(SAMPLE_CATALOGUE_DIR), { sample: true }, now)).version;
}

/** DATA_DIR/demo-credentials.json: the demo secrets live here, never in a log. */
export interface DemoCredentials {
  user_id: string;
  organisation_id: string;
  administration_token: string;
  organisation_token: string;
  expires_at: string;
  /** While the operator has no passkey: the one-time console link that registers one. */
  enrolment_url?: string;
}

/**
 * The demo installation of a first start: an operator with installation permissions and access to
 * a demo organisation, an Administration token and an organisation token. Tokens are reissued
 * when the stored ones have expired or no longer verify (an earlier token format).
 */
export async function ensureDemo(dataDir: string, now: Date): Promise<{ created: boolean; path: string; enrolment: boolean }> {
  const path = join(dataDir, 'demo-credentials.json');
  const marker = await demoMarker();
  if (marker && existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
    const key = await tokenHashSecret();
    const usable = [stored.administration_token, stored.organisation_token].every((t) => verifiedClaims(t, key));
    const tokens = usable && Date.parse(stored.expires_at) > now.getTime() ? stored : await issueDemoTokens(stored.user_id, stored.organisation_id, now);
    const credentials = { ...tokens, enrolment_url: await demoEnrolment(stored.user_id, now) };
    writeFileSync(path, JSON.stringify(credentials, null, 2), { mode: 0o600 });
    return { created: false, path, enrolment: credentials.enrolment_url !== undefined };
  }
  const userId = marker
    ? marker.user_id
    : (await createUser({ email: `operator+${newUlid().toLowerCase()}@demo.invalid`, name: 'Demo Operator', superUser: true }, now)).id;
  const organisationId = marker ? marker.organisation_id : await createDemoOrganisation(userId, now);
  if (!marker) {
    // The demo operator also administers users in the console (the console's own installation permissions).
    await grantAccess(userId, { kind: 'installation' }, [...permissionsOf('administration'), ...CONSOLE_PERMISSIONS], now);
    await grantAccess(userId, { kind: 'organisation', id: organisationId }, permissionsOf('organisation'), now);
    await recordDemo({ user_id: userId, organisation_id: organisationId });
  }
  const credentials = { ...(await issueDemoTokens(userId, organisationId, now)), enrolment_url: await demoEnrolment(userId, now) };
  writeFileSync(path, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return { created: true, path, enrolment: credentials.enrolment_url !== undefined };
}

/**
 * A fresh enrolment link at each start until the demo operator has registered a passkey, so that
 * the console can be opened from a first start without the CLI; none once a passkey exists.
 */
async function demoEnrolment(userId: string, now: Date): Promise<string | undefined> {
  const user = await getUser(userId);
  if (user?.status !== 'active' || (user.passkeys ?? 0) > 0) return undefined;
  const enrolment = await reEnrolAs({ kind: 'operator' }, userId, { request_id: `local-${newUlid()}`, method: 'LOCAL', route: 'npm start' }, now);
  return enrolmentUrl(consoleConfig(), enrolment.secret);
}

async function createDemoOrganisation(userId: string, now: Date): Promise<string> {
  const id = newUlid(now.getTime());
  const org = newOrganisation({
    id,
    name: 'Demo Organisation',
    slug: `demo-${id.slice(-8).toLowerCase()}`,
    timezone: 'Australia/Sydney',
    createdBy: userId,
    now,
    notes: 'Created by the local runtime on first start.',
  });
  const refused = () => forbidden('licence_limit_reached', 'no licence left for the demo organisation');
  await commit(createOrganisationWrites(org, Number.MAX_SAFE_INTEGER, refused, refused));
  return id;
}

async function issueDemoTokens(userId: string, organisationId: string, now: Date): Promise<DemoCredentials> {
  const admin = await issueToken(
    userId,
    {
      token_type: 'administration',
      name: 'Demo Administration token',
      abilities: Object.keys(CATALOGUE.administration),
      read_only: false,
    },
    now,
  );
  const org = await issueToken(
    userId,
    {
      token_type: 'organisation',
      organisation_id: organisationId,
      name: 'Demo organisation token',
      abilities: permissionsOf('organisation'),
      read_only: false,
    },
    now,
  );
  return {
    user_id: userId,
    organisation_id: organisationId,
    administration_token: admin.token,
    organisation_token: org.token,
    expires_at: [admin.expires_at, org.expires_at].sort()[0]!,
  };
}
