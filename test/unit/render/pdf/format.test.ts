import { describe, expect, it } from 'vitest';
import { formatDate, formatTimestamp, humanise, plain } from '../../../../lib/render/pdf/format.js';

describe('PDF text formatting', () => {
  it('draws tabs as spaces and CR LF as one line break', () => {
    expect(plain('a\tb\r\nc\nd')).toBe('a    b\nc\nd');
  });

  it('writes dates in words and times in UTC, whatever the locale, joined by no-break spaces', () => {
    expect(formatDate('2026-01-09')).toBe('9\u00a0January\u00a02026');
    expect(formatTimestamp('2026-11-25T01:02:03.000Z')).toBe('25\u00a0November\u00a02026\u00a001:02\u00a0UTC');
  });

  it('names stored values in words, with none as not set', () => {
    expect(humanise('partially_implemented')).toBe('Partially implemented');
    expect(humanise('ec')).toBe('Effective through external provider');
    expect(humanise(null)).toBe('Not set');
  });
});
