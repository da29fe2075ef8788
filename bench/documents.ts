import { readReleaseDirectory } from '../lib/catalogue/files.js';
import { importRelease } from '../lib/catalogue/store.js';
import { CATALOGUE, type DocumentKey } from '../lib/domain/documents.js';
import type { Pollers } from '../lib/jobs/local.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { putAll } from '../lib/store/batch.js';
import { keys, prefixes } from '../lib/store/keys.js';
import { queryAll } from '../lib/store/read.js';
import { call, ISM_RELEASE_DIR } from './population.js';
import { projectToken } from './workload.js';

export interface GenerationFigures {
  document_key: string;
  controls: number;
  wall_ms: number;
  bytes: number;
  peak_rss_mb: number;
  rss_increase_mb: number;
}

/** Samples this process's resident set while `work` runs: the worker, the emulated S3 and the API share the process, so the peak is an upper bound. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number; before: number }> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, peak, before };
  } finally {
    clearInterval(timer);
  }
}

const MB = 1024 * 1024;

/** As many controls as the assessor's trial of issue 22 took to assessed: enough for every assessment document to have findings to lay out. */
const ASSESSED_THROUGH_API = 20;

/**
 * A TOP SECRET project on the official release (1,066 controls), every control with an
 * implementation description, most Essential Eight controls concluded, and 20 other controls taken
 * to assessed through the API; then every template of the catalogue generated through the API and
 * the generation worker: wall time from POST to completed, output size and peak RSS.
 */
export async function benchDocuments(base: string, demo: DemoCredentials, pollers: Pollers, log: (line: string) => void): Promise<GenerationFigures[]> {
  const release = await importRelease(readReleaseDirectory(ISM_RELEASE_DIR), { sample: false }, new Date());
  const org = `/api/v1/organisations/${demo.organisation_id}`;
  const token = demo.organisation_token;
  const system = await call(base, token, 'POST', `${org}/systems`, {
    expect: 201,
    headers: { 'Idempotency-Key': 'bench-documents-system' },
    body: { name: 'Bench documents system', short_code: 'BENCHDOC' },
  });
  const projects = `${org}/systems/${String(system.json!.data.id)}/projects`;
  const project = await call(base, token, 'POST', projects, {
    expect: 201,
    headers: { 'Idempotency-Key': 'bench-documents-project' },
    body: { name: 'Bench TOP SECRET project', ism_release_id: release.id, classification: 'TS', essential_eight_target: 'ML2' },
  });
  const projectId = String(project.json!.data.id);
  await call(base, token, 'POST', `${projects}/${projectId}/population`, { expect: 202, headers: { 'If-Match': project.etag }, body: {} });
  await pollers.drain();
  const controls = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':p': prefixes.control },
  });
  // Arranged in the table directly: the figures are the generation's, not 1,066 PATCHes'. Three in
  // four Essential Eight controls are concluded (one in four of those a finding), so that the
  // Essential Eight report has levels achieved, not achieved and not determined to lay out.
  let e8 = 0;
  await putAll(
    controls.map((c) => ({
      ...c,
      implementation_status: 'implemented',
      implementation_summary: `Implemented centrally for ${String(c.label)}.`,
      implementation_description: `The agency meets ${String(c.label)} through centrally managed configuration, enforced by group policy and verified weekly by the operations team. Exceptions are recorded in the exceptions register and reviewed each quarter by the system owner, and evidence of each review is kept with the register.`,
      ...(Array.isArray(c.essential_eight) && c.essential_eight.length > 0 ? conclusion(e8++) : {}),
    })),
    8,
  );
  const projectCredential = await projectToken(demo, projectId, 'Bench documents token');
  const others = controls.filter((c) => c.applicability === 'y' && !(Array.isArray(c.essential_eight) && c.essential_eight.length > 0));
  for (const [n, c] of others.slice(0, ASSESSED_THROUGH_API).entries()) await assess(base, projectCredential, projectId, String(c.id), n);
  log(
    `documents: TOP SECRET project with ${controls.length} controls, each with an implementation description, ${e8} Essential Eight controls mostly concluded, ${ASSESSED_THROUGH_API} others assessed`,
  );
  const figures: GenerationFigures[] = [];
  for (const key of Object.keys(CATALOGUE) as DocumentKey[]) {
    const started = performance.now();
    const { result, peak, before } = await peakRss(async () => {
      const answer = await call(base, projectCredential, 'POST', `/api/v1/projects/${projectId}/documents/generation`, {
        expect: 202,
        body: { document_key: key },
      });
      await pollers.drain();
      return String(answer.json!.data.document_id);
    });
    const wall = performance.now() - started;
    const row = await call(base, projectCredential, 'GET', `/api/v1/projects/${projectId}/documents/${result}`, { expect: 200 });
    if (row.json!.data.status !== 'ready') throw new Error(`${key} generation ended ${JSON.stringify(row.json!.data.generation)}`);
    figures.push({
      document_key: key,
      controls: controls.length,
      wall_ms: Math.round(wall),
      bytes: Number((row.json!.data.output as { size: number }).size),
      peak_rss_mb: Math.round(peak / MB),
      rss_increase_mb: Math.round((peak - before) / MB),
    });
  }
  return figures;
}

/** Takes a control from editing to assessed as an assessor does: four requests, each on the ETag the last one answered; every third a finding. */
async function assess(base: string, token: string, projectId: string, controlId: string, n: number): Promise<void> {
  const url = `/api/v1/projects/${projectId}/controls/${controlId}`;
  const transition = (etag: string, id: string) =>
    call(base, token, 'POST', `${url}/transitions`, { expect: 200, headers: { 'If-Match': etag }, body: { transition: id } });
  let { etag } = await call(base, token, 'GET', url, { expect: 200 });
  ({ etag } = await transition(etag, 'editing_to_ready_for_assessment'));
  ({ etag } = await transition(etag, 'ready_for_assessment_to_assessing'));
  const finding = n % 3 === 0;
  ({ etag } = await call(base, token, 'PATCH', `${url}/assessment`, {
    expect: 200,
    headers: { 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' },
    body: {
      overall_assessed_outcome: finding ? 'ineffective' : 'effective',
      overall_assessed_rationale: finding ? 'The configuration reviewed does not enforce the control.' : 'Observed in the configuration and the records.',
      finding_severity: finding ? 'medium' : null,
    },
  }));
  await transition(etag, 'assessing_to_assessed');
}

/** The n-th Essential Eight control's conclusion: none for every fourth, a finding for every fourth of the rest. */
function conclusion(n: number): Record<string, unknown> {
  if (n % 4 === 3) return {};
  const finding = n % 16 === 0;
  return {
    overall_assessed_outcome: finding ? 'ineffective' : 'effective',
    overall_assessed_rationale: `Sampled 5 of 40 workstations; ${finding ? 'two did not enforce the setting' : 'all enforced the setting'}.`,
    finding_severity: finding ? 'high' : null,
  };
}

export function formatDocuments(figures: GenerationFigures[]): string {
  return [
    '',
    'Document generation on a TOP SECRET project (ISM 2025.12.9), POST to completed, through the generation worker (targets: SSP <= 10 s and <= 512 MB RSS; every other template <= 5 s):',
    ...figures.map(
      (f) =>
        `  ${f.document_key}: ${f.controls} controls, wall ${(f.wall_ms / 1000).toFixed(2)} s, ${(f.bytes / 1024).toFixed(0)} KiB, peak RSS ${f.peak_rss_mb} MB (+${f.rss_increase_mb} MB over idle; API, worker and S3 emulator share the process)`,
    ),
  ].join('\n');
}
