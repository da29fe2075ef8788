import { performance } from 'node:perf_hooks';
import { readJsonBody } from '../lib/domain/json-body.js';

/** Reading one 1 MB JSON body: JSON.parse alone against readJsonBody, which adds the duplicate-key scan. */
export interface JsonBodyFigures {
  bytes: number;
  runs: number;
  json_parse_p50_ms: number;
  read_json_body_p50_ms: number;
}

const RUNS = 30;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** Register rows of short strings, numbers, a nested object and an array, as many as fill `bytes`. */
function bodyOf(bytes: number): Buffer {
  const rows: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const row = { asset_tag: `A-${i}`, name: `Server ${i} 東京`, owner: { id: i, email: `owner${i}@example.com` }, tags: ['prod', 'payroll'], cost: i * 1.5 };
    size += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return Buffer.from(JSON.stringify({ data: rows }), 'utf8');
}

function median(read: () => unknown): number {
  for (let i = 0; i < 5; i++) read();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    read();
    times.push(performance.now() - start);
  }
  return round1(times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!);
}

export function benchJsonBody(): JsonBodyFigures {
  const body = bodyOf(1024 * 1024);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return {
    bytes: body.length,
    runs: RUNS,
    json_parse_p50_ms: median(() => JSON.parse(decoder.decode(body))),
    read_json_body_p50_ms: median(() => readJsonBody(body)),
  };
}

export const formatJsonBody = (f: JsonBodyFigures) =>
  `\nJSON body of ${(f.bytes / 1024 / 1024).toFixed(2)} MB (p50 of ${f.runs}): JSON.parse ${f.json_parse_p50_ms} ms, readJsonBody (with the duplicate-key scan) ${f.read_json_body_p50_ms} ms`;
