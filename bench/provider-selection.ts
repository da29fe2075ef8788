import { releaseEntries } from '../lib/store/catalogue-entries.js';
import type { Pollers } from '../lib/jobs/local.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { traceDdb, type DdbCall } from '../lib/store/client.js';
import { projectApplicability } from '../lib/store/controls.js';
import { keys } from '../lib/store/keys.js';
import { getOne } from '../lib/store/read.js';
import { publishedReleaseAsserting } from '../test/support/providers.js';
import { call } from './population.js';

export interface SelectionFigures {
  controls: number;
  assertions: number;
  select: PassFigures;
  deselect: PassFigures;
}

interface PassFigures {
  ec: number;
  /** Controls whose version the pass moved: what the write units are held to, per control. */
  changed: number;
  wcu_per_changed: number;
  wall_ms: number;
  ddb_requests: number;
  requests_by_command: Record<string, number>;
  wcu: number;
  rcu: number;
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
  const ismReleaseId = String(project.ism_release_id);
  const controls = (await releaseEntries(ismReleaseId)).filter((e) => e.kind === 'control').map((e) => e.id);
  const release = await publishedReleaseAsserting(ismReleaseId, controls, 'Bench selection cloud');
  const scopeUrl = `/api/v1/organisations/${demo.organisation_id}/systems/${String(project.system_id)}/projects/${projectId}/scope`;
  const pass = async (selections: { provider_id: string; release_id: string }[]): Promise<PassFigures> => {
    const read = await call(base, demo.organisation_token, 'GET', scopeUrl, { expect: 200 });
    const versions = new Map((await projectApplicability(projectId)).map((c) => [c.id, c.version]));
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
    const changed = controls.filter((c) => versions.get(c.id) !== c.version).length;
    const wcu = sum((c) => c.wcu);
    return {
      ec: controls.filter((c) => c.implementation_status === 'ec').length,
      changed,
      wcu_per_changed: changed ? Math.round((wcu / changed) * 100) / 100 : 0,
      wall_ms: Math.round(wall),
      ddb_requests: calls.length,
      requests_by_command: byCommand,
      wcu,
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
    return `  ${name}: ec ${p.ec}, controls changed ${p.changed} (WCU per changed control ${p.wcu_per_changed}), wall ${(p.wall_ms / 1000).toFixed(2)} s, DynamoDB requests ${p.ddb_requests} (${mix}), WCU ${p.wcu}, RCU ${p.rcu}`;
  };
  return [
    '',
    `Provider selection on the PROTECTED project (${f.controls} controls; a release asserting ${f.assertions}), PATCH to recalculated:`,
    line('select', f.select),
    line('deselect', f.deselect),
  ].join('\n');
}
