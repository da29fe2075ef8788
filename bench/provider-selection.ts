import { releaseEntries } from '../lib/catalogue/store.js';
import { assertionId, type StoredAssertion } from '../lib/domain/assertions.js';
import { publishedRelease } from '../lib/domain/providers.js';
import type { Pollers } from '../lib/jobs/local.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { assertionBatchWrites } from '../lib/store/assertions.js';
import { traceDdb, type DdbCall } from '../lib/store/client.js';
import { attributeEquals, itemAbsent } from '../lib/store/conditions.js';
import { projectApplicability } from '../lib/store/controls.js';
import { keys } from '../lib/store/keys.js';
import { publishReleaseWrites } from '../lib/store/providers.js';
import { getOne } from '../lib/store/read.js';
import { commit } from '../lib/store/transact.js';
import { assertionContent, releaseAsStored, storedProvider, storedRelease } from '../test/support/providers.js';
import { call } from './population.js';

export interface SelectionFigures {
  controls: number;
  assertions: number;
  select: PassFigures;
  deselect: PassFigures;
}

interface PassFigures {
  ec: number;
  wall_ms: number;
  ddb_requests: number;
  requests_by_command: Record<string, number>;
  wcu: number;
  rcu: number;
}

const never = () => new Error('unexpected');
/** One transaction of assertions and the release's count update stays under DynamoDB's 100 items. */
const CHUNK = 45;

/** A published release that confirms every control of the ISM release as provider-implemented, with consumer guidance. */
async function publishedFullRelease(ismReleaseId: string): Promise<{ provider_id: string; release_id: string; count: number }> {
  const provider = await storedProvider('Bench selection cloud');
  const draft = await storedRelease(provider.id, { ismVersionId: ismReleaseId, status: 'draft' });
  const controls = (await releaseEntries(ismReleaseId)).filter((e) => e.kind === 'control').map((e) => e.id);
  const assertions: StoredAssertion[] = controls.map((control, i) => ({
    id: assertionId(draft.id, control),
    provider_id: provider.id,
    release_id: draft.id,
    control_id: control,
    status: 'confirmed',
    version: 1,
    reviewed_by: 'bench',
    reviewed_at: new Date().toISOString(),
    ...assertionContent(),
    row: i + 2,
    consumer_guidance: `Tenants confirm the platform's configuration for ${control} in their annual review.`,
  }));
  const guard = { condition: attributeEquals('status', 'draft'), onConditionFailed: never };
  for (let i = 0; i < assertions.length; i += CHUNK) {
    const pairs = assertions.slice(i, i + CHUNK).map((after) => ({ after, before: undefined }));
    await commit(assertionBatchWrites(pairs, { provider_id: provider.id, id: draft.id, guard }, () => ({ condition: itemAbsent(), onConditionFailed: never })));
  }
  const before = await releaseAsStored(provider.id, draft.id);
  await commit(publishReleaseWrites(before, publishedRelease(before, 'bench', new Date()), never));
  return { provider_id: provider.id, release_id: draft.id, count: assertions.length };
}

/**
 * A scope save that selects a release asserting every ISM control, on the populated PROTECTED
 * project, then one that clears it: each from the PATCH to the end of the recalculation job (run
 * by the local poller), tracing the job's DynamoDB requests and capacity.
 */
export async function benchProviderSelection(
  base: string,
  demo: DemoCredentials,
  pollers: Pollers,
  projectId: string,
  log: (line: string) => void,
): Promise<SelectionFigures> {
  const project = (await getOne(keys.project(projectId)))!;
  const release = await publishedFullRelease(String(project.ism_release_id));
  const scopeUrl = `/api/v1/organisations/${demo.organisation_id}/systems/${String(project.system_id)}/projects/${projectId}/scope`;
  const pass = async (selections: { provider_id: string; release_id: string }[]): Promise<PassFigures> => {
    const read = await call(base, demo.organisation_token, 'GET', scopeUrl, { expect: 200 });
    const started = performance.now();
    await call(base, demo.organisation_token, 'PATCH', scopeUrl, {
      expect: 200,
      headers: { 'If-Match': read.etag, 'Content-Type': 'application/merge-patch+json' },
      body: { provider_selections: selections },
    });
    const { calls } = await traceDdb(() => pollers.drain());
    const wall = performance.now() - started;
    const byCommand: Record<string, number> = {};
    for (const c of calls) byCommand[c.command] = (byCommand[c.command] ?? 0) + 1;
    const sum = (f: (c: DdbCall) => number) => Math.round(calls.reduce((a, c) => a + f(c), 0) * 10) / 10;
    const controls = await projectApplicability(projectId);
    return {
      ec: controls.filter((c) => c.implementation_status === 'ec').length,
      wall_ms: Math.round(wall),
      ddb_requests: calls.length,
      requests_by_command: byCommand,
      wcu: sum((c) => c.wcu),
      rcu: sum((c) => c.rcu),
    };
  };
  log(`provider selection: a release asserting ${release.count} controls, selected and cleared`);
  const select = await pass([{ provider_id: release.provider_id, release_id: release.release_id }]);
  const deselect = await pass([]);
  return { controls: (await projectApplicability(projectId)).length, assertions: release.count, select, deselect };
}

export function formatProviderSelection(f: SelectionFigures): string {
  const line = (name: string, p: PassFigures) => {
    const mix = Object.entries(p.requests_by_command)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return `  ${name}: ec ${p.ec}, wall ${(p.wall_ms / 1000).toFixed(2)} s, DynamoDB requests ${p.ddb_requests} (${mix}), WCU ${p.wcu}, RCU ${p.rcu}`;
  };
  return [
    '',
    `Provider selection on the PROTECTED project (${f.controls} controls; a release asserting ${f.assertions}), PATCH to recalculated:`,
    line('select', f.select),
    line('deselect', f.deselect),
  ].join('\n');
}
