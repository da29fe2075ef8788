import { describe, expect, it } from 'vitest';
import { formatBundles, limitsExceeded, type BundleFigures } from '../../../bench/bundles.js';

const KB = 1024;
const figures = (name: string, kb: number, cpu: number): BundleFigures => ({ function: name, bytes: kb * KB, init_ms: cpu * 3, init_cpu_ms: cpu });

describe('function size limits in the bench', () => {
  it('passes an HTTP function at 700 KB and 100 ms of CPU init', () => {
    expect(limitsExceeded(figures('http/controls', 700, 100))).toEqual([]);
  });

  it('flags an HTTP function over 700 KB, the meta function included', () => {
    expect(limitsExceeded({ ...figures('http/meta', 700, 10), bytes: 700 * KB + 1 })).toEqual(['701 KB > 700 KB']);
  });

  it('flags an HTTP function whose median CPU init is over 100 ms, whatever its wall time', () => {
    expect(limitsExceeded({ ...figures('http/evidence', 300, 100.4), init_ms: 50 })).toEqual(['100.4 ms CPU > 100 ms']);
  });

  it('leaves workers out of the HTTP limits', () => {
    expect(limitsExceeded(figures('workers/populate', 900, 200))).toEqual([]);
  });

  it('names every function over a limit after the table', () => {
    const text = formatBundles([figures('http/console', 744, 90), figures('http/tasks', 400, 40)]);
    expect(text.split('\n').at(-1)).toBe('  Over the limits: http/console (744 KB > 700 KB).');
  });

  it('gives a flagged function the same size in its row as in the flag', () => {
    const text = formatBundles([{ ...figures('http/evidence', 700, 40), bytes: 700 * KB + 100 }]);
    expect(text.split('\n').find((line) => line.includes('http/evidence') && line.includes('ms CPU'))).toMatch(/ 701 KB .* \*$/);
  });
});
