import { sequentialRoundTrips, type DdbCall } from '../lib/store/client.js';
import type { RequestTrace } from './recorder.js';

export interface OperationFigures {
  requests: number;
  p50_ms: number;
  p95_ms: number;
  ddb_requests: number;
  ddb_sequential_round_trips: number;
  rcu: number;
  wcu: number;
}

/** Where a request's time went, measured in the server: shown in the table, not in --json. */
export interface ServerFigures {
  server_p50_ms: number;
  /** Median wall time during which at least one DynamoDB request of the request was in flight. */
  ddb_p50_ms: number;
}

export interface CommandFigures {
  count: number;
  rcu: number;
  wcu: number;
}

export interface Summary {
  operations: Map<string, OperationFigures>;
  server: Map<string, ServerFigures>;
  /** Mean count and capacity of each DynamoDB command per request, by label (explains ddb_requests). */
  commandMix: Map<string, Map<string, CommandFigures>>;
  /** Every Scan seen, warm-up included: the design allows none. */
  scans: { label: string; count: number }[];
  /** DynamoDB calls that started after their response had been sent. */
  lateCalls: { label: string; count: number }[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

function busyTime(calls: DdbCall[]): number {
  let total = 0;
  let until = -Infinity;
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    if (c.end <= until) continue;
    total += c.end - Math.max(c.start, until);
    until = c.end;
  }
  return total;
}

/** Nearest-rank percentile: always a latency that was actually observed. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function tally(traces: RequestTrace[], count: (t: RequestTrace) => number): { label: string; count: number }[] {
  const out = new Map<string, number>();
  for (const t of traces) {
    const n = count(t);
    if (n > 0) out.set(t.label, (out.get(t.label) ?? 0) + n);
  }
  return [...out].map(([label, n]) => ({ label, count: n }));
}

/** Client-side latencies and server-side traces, joined by label; their counts must agree. */
export function summarise(latencies: Map<string, number[]>, traces: RequestTrace[]): Summary {
  const byLabel = new Map<string, RequestTrace[]>();
  for (const t of traces.filter((t) => t.recorded)) {
    const list = byLabel.get(t.label) ?? [];
    list.push(t);
    byLabel.set(t.label, list);
  }
  const operations = new Map<string, OperationFigures>();
  const server = new Map<string, ServerFigures>();
  const commandMix = new Map<string, Map<string, CommandFigures>>();
  for (const [label, times] of latencies) {
    const group = byLabel.get(label) ?? [];
    if (group.length !== times.length) {
      throw new Error(`${label}: the client sent ${times.length} requests but the server traced ${group.length}`);
    }
    operations.set(label, {
      requests: times.length,
      p50_ms: round2(percentile(times, 50)),
      p95_ms: round2(percentile(times, 95)),
      ddb_requests: round2(mean(group.map((t) => t.calls.length))),
      ddb_sequential_round_trips: round2(mean(group.map((t) => sequentialRoundTrips(t.calls)))),
      rcu: round2(mean(group.map((t) => t.calls.reduce((s, c) => s + c.rcu, 0)))),
      wcu: round2(mean(group.map((t) => t.calls.reduce((s, c) => s + c.wcu, 0)))),
    });
    server.set(label, {
      server_p50_ms: round2(
        percentile(
          group.map((t) => t.finishedAt - t.startedAt),
          50,
        ),
      ),
      ddb_p50_ms: round2(
        percentile(
          group.map((t) => busyTime(t.calls)),
          50,
        ),
      ),
    });
    const mix = new Map<string, CommandFigures>();
    for (const call of group.flatMap((t) => t.calls)) {
      const m = mix.get(call.command) ?? { count: 0, rcu: 0, wcu: 0 };
      mix.set(call.command, { count: m.count + 1, rcu: m.rcu + call.rcu, wcu: m.wcu + call.wcu });
    }
    const perRequest = ([c, m]: [string, CommandFigures]): [string, CommandFigures] => [
      c,
      { count: round2(m.count / group.length), rcu: round2(m.rcu / group.length), wcu: round2(m.wcu / group.length) },
    ];
    commandMix.set(label, new Map([...mix].sort(([a], [b]) => a.localeCompare(b)).map(perRequest)));
  }
  const unexpected = [...byLabel.keys()].filter((label) => !latencies.has(label));
  if (unexpected.length > 0) throw new Error(`the server traced requests the workload did not send: ${unexpected.join(', ')}`);
  return {
    operations,
    server,
    commandMix,
    scans: tally(traces, (t) => t.calls.filter((c) => c.command === 'Scan').length),
    lateCalls: tally(traces, (t) => t.calls.filter((c) => c.start > t.finishedAt).length),
  };
}

const COLUMNS = ['operation', 'requests', 'p50_ms', 'p95_ms', 'ddb_requests', 'ddb_seq_round_trips', 'rcu', 'wcu', 'server_p50_ms', 'ddb_busy_p50_ms'] as const;

export function formatTable(summary: Summary): string {
  const rows = [...summary.operations].map(([label, f]) => [
    label,
    String(f.requests),
    f.p50_ms.toFixed(2),
    f.p95_ms.toFixed(2),
    f.ddb_requests.toFixed(2),
    f.ddb_sequential_round_trips.toFixed(2),
    f.rcu.toFixed(2),
    f.wcu.toFixed(2),
    (summary.server.get(label)?.server_p50_ms ?? 0).toFixed(2),
    (summary.server.get(label)?.ddb_p50_ms ?? 0).toFixed(2),
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [line(COLUMNS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''];
  out.push('p50_ms/p95_ms: client round trip; server_p50_ms: request in to response out; ddb_busy_p50_ms: time with a DynamoDB call in flight.');
  out.push('');
  out.push('DynamoDB commands per request (mean count, rcu, wcu):');
  for (const [label, mix] of summary.commandMix) {
    const parts = [...mix].map(([c, m]) => `${c} x${m.count} (${m.rcu} rcu, ${m.wcu} wcu)`);
    out.push(`  ${label.padEnd(widths[0]!)}  ${parts.join(', ') || 'none'}`);
  }
  out.push('');
  out.push(summary.scans.length === 0 ? 'Scan: none' : `Scan: FOUND (${summary.scans.map((s) => `${s.label} x${s.count}`).join(', ')})`);
  if (summary.lateCalls.length > 0) {
    out.push(`DynamoDB calls started after the response was sent: ${summary.lateCalls.map((s) => `${s.label} x${s.count}`).join(', ')}`);
  }
  return out.join('\n');
}

export function formatJson(summary: Summary): string {
  return JSON.stringify({ operations: Object.fromEntries(summary.operations) });
}
