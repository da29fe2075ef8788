import { OPERATIONS } from '../lib/operations/registry.js';
import type { Summary } from './stats.js';

/** P4: what the budget counters (ingress, credential, actor, organisation) write per read request. */
export interface CounterFigures {
  read_requests: number;
  counter_updates_per_read_request: number;
  counter_wcu_per_read_request: number;
  by_operation: Record<string, { updates: number; wcu: number }>;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const isRead = (label: string) => OPERATIONS.find((o) => o.id === label.split('@')[0])?.mode === 'read';

/** A read request writes nothing but its budget counters, so its UpdateItem calls are the counters' cost. */
export function counterWrites(summary: Summary): CounterFigures {
  let requests = 0;
  let updates = 0;
  let wcu = 0;
  const byOperation: CounterFigures['by_operation'] = {};
  for (const [label, figures] of summary.operations) {
    if (!isRead(label)) continue;
    const update = summary.commandMix.get(label)?.get('UpdateItem') ?? { count: 0, wcu: 0 };
    byOperation[label] = { updates: update.count, wcu: update.wcu };
    requests += figures.requests;
    updates += update.count * figures.requests;
    wcu += update.wcu * figures.requests;
  }
  return {
    read_requests: requests,
    counter_updates_per_read_request: round2(updates / Math.max(requests, 1)),
    counter_wcu_per_read_request: round2(wcu / Math.max(requests, 1)),
    by_operation: byOperation,
  };
}

export function formatCounters(f: CounterFigures): string {
  return [
    '',
    `P4, budget counters per read request (UpdateItem ADD on RATE# windows; ${f.read_requests} read requests):`,
    `  counter WCU per read request ${f.counter_wcu_per_read_request} (${f.counter_updates_per_read_request} UpdateItem per request)`,
    ...Object.entries(f.by_operation).map(([label, o]) => `  ${label.padEnd(32)} ${o.updates} updates, ${o.wcu} wcu`),
  ].join('\n');
}
