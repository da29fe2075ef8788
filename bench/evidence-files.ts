import type { Pollers } from '../lib/jobs/local.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { projectToken } from './workload.js';

/** The fixed sizes and counts of the evidence file workload. */
export const EVIDENCE_FILES = { inline: 1024 * 1024, session: 20 * 1024 * 1024, inlineRuns: 5, sessionRuns: 2, downloads: 3 } as const;

export interface EvidenceFileFigures {
  /** POST of the form to the item reading ready (the scan run by the local poller), per upload. */
  inline_1mib_to_ready_ms: number[];
  /** Session created, file posted to S3, form naming the session, then ready. */
  session_20mib_to_ready_ms: number[];
  download_20mib_ms: number[];
  /** The process's resident set above its figure just before the downloads (server, emulator and client share it). */
  download_peak_rss_above_idle_mib: number;
}

/** A PDF as type detection takes it, padded to the size wanted (a comment line, which readers skip). */
function pdfOf(size: number): Buffer {
  const head = Buffer.from('%PDF-1.7\n%', 'latin1');
  const tail = Buffer.from('\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, 0x41), tail]);
}

/**
 * Evidence files end to end on one control of the populated project: inline uploads of 1 MiB and
 * session uploads of 20 MiB timed to ready, then downloads of the 20 MiB file read as a stream and
 * discarded while the process's RSS is sampled, so that a buffering server would show.
 */
export async function benchEvidenceFiles(
  base: string,
  demo: DemoCredentials,
  projectId: string,
  pollers: Pollers,
  log: (line: string) => void,
): Promise<EvidenceFileFigures> {
  const token = await projectToken(demo, projectId, 'Bench evidence files token');
  const auth = { Authorization: `Bearer ${token}` };
  const controls = `${base}/api/v1/projects/${projectId}/controls`;
  const page = (await (await fetch(`${controls}?page[size]=1&page[number]=600`, { headers: auth })).json()) as { data: { id: string }[] };
  const evidence = `${controls}/${page.data[0]!.id}/evidence`;

  async function untilReady(id: string): Promise<void> {
    for (;;) {
      await pollers.drain();
      const item = (await (await fetch(`${evidence}/${id}`, { headers: auth })).json()) as { data: { status: string } };
      if (item.data.status === 'ready') return;
      if (item.data.status === 'error') throw new Error(`evidence ${id} failed its scan`);
    }
  }
  async function upload(form: FormData): Promise<string> {
    const res = await fetch(`${evidence}/uploads`, { method: 'POST', headers: auth, body: form });
    const body = (await res.json()) as { data: { id: string } };
    if (res.status !== 201) throw new Error(`uploadEvidence answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.data.id;
  }

  const figures: EvidenceFileFigures = {
    inline_1mib_to_ready_ms: [],
    session_20mib_to_ready_ms: [],
    download_20mib_ms: [],
    download_peak_rss_above_idle_mib: 0,
  };
  log(`uploadEvidence: ${EVIDENCE_FILES.inlineRuns} inline files of 1 MiB, each timed to ready`);
  for (let i = 0; i < EVIDENCE_FILES.inlineRuns; i++) {
    const form = new FormData();
    form.append('file', new Blob([pdfOf(EVIDENCE_FILES.inline - i)], { type: 'application/pdf' }), `inline-${i}.pdf`);
    const started = performance.now();
    await untilReady(await upload(form));
    figures.inline_1mib_to_ready_ms.push(performance.now() - started);
  }
  log(`uploadEvidence: ${EVIDENCE_FILES.sessionRuns} files of 20 MiB through upload sessions, each timed to ready`);
  let large = '';
  for (let i = 0; i < EVIDENCE_FILES.sessionRuns; i++) {
    const name = `session-${i}.pdf`;
    const started = performance.now();
    const created = await fetch(`${evidence}/upload-sessions`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file_name: name }),
    });
    const session = (await created.json()) as { data: { id: string; upload: { url: string; fields: Record<string, string> } } };
    const s3form = new FormData();
    for (const [k, v] of Object.entries(session.data.upload.fields)) s3form.append(k, v);
    s3form.append('file', new Blob([pdfOf(EVIDENCE_FILES.session - i)]), name);
    const posted = await fetch(session.data.upload.url, { method: 'POST', body: s3form });
    if (posted.status >= 300) throw new Error(`the session's S3 POST answered ${posted.status}`);
    const form = new FormData();
    form.append('upload_session', session.data.id);
    large = await upload(form);
    await untilReady(large);
    figures.session_20mib_to_ready_ms.push(performance.now() - started);
  }
  log(`downloadEvidence: ${EVIDENCE_FILES.downloads} downloads of 20 MiB, RSS sampled every 5 ms`);
  (globalThis as { gc?: () => void }).gc?.();
  const idle = process.memoryUsage.rss();
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    for (let i = 0; i < EVIDENCE_FILES.downloads; i++) {
      const started = performance.now();
      const res = await fetch(`${evidence}/${large}/download`, { headers: auth });
      if (res.status !== 200 || !res.body) throw new Error(`downloadEvidence answered ${res.status}`);
      let bytes = 0;
      for await (const chunk of res.body) bytes += (chunk as Uint8Array).length;
      if (bytes !== EVIDENCE_FILES.session - (EVIDENCE_FILES.sessionRuns - 1)) throw new Error(`downloadEvidence sent ${bytes} bytes`);
      figures.download_20mib_ms.push(performance.now() - started);
    }
  } finally {
    clearInterval(sampler);
  }
  figures.download_peak_rss_above_idle_mib = Math.round(((peak - idle) / 1024 / 1024) * 10) / 10;
  return figures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export function formatEvidenceFiles(f: EvidenceFileFigures): string {
  return [
    '',
    'Evidence files (one control of the populated project; scans run by the local poller):',
    `  uploadEvidence 1 MiB inline, POST to ready: median ${median(f.inline_1mib_to_ready_ms).toFixed(1)} ms over ${f.inline_1mib_to_ready_ms.length}`,
    `  uploadEvidence 20 MiB via an upload session, session to ready: median ${median(f.session_20mib_to_ready_ms).toFixed(1)} ms over ${f.session_20mib_to_ready_ms.length}`,
    `  downloadEvidence 20 MiB: median ${median(f.download_20mib_ms).toFixed(1)} ms; peak RSS ${f.download_peak_rss_above_idle_mib} MiB above its idle figure (target: within 64 MiB)`,
  ].join('\n');
}
