import { describe, expect, it } from 'vitest';
import { dateTime, line, statementIdOf } from '../../../../lib/render/oscal/common.js';
import { ismRelease } from '../../../support/document-model.js';
import { ismStatementIds } from '../../../support/oscal.js';

const FALLBACK = '2026-11-25T01:02:03.000Z';

describe('OSCAL values', () => {
  it('reads a bare date as the start of that day in UTC', () => {
    expect(dateTime('2026-10-01', FALLBACK)).toBe('2026-10-01T00:00:00Z');
  });

  it('keeps a date-time with seconds and a time zone', () => {
    expect(dateTime('2026-10-01T10:11:12.5+10:00', FALLBACK)).toBe('2026-10-01T10:11:12.5+10:00');
  });

  it('falls back for a date-time OSCAL would refuse', () => {
    expect([dateTime('2026-10-01T10:11Z', FALLBACK), dateTime('2026-10-01T10:11:12', FALLBACK), dateTime(null, FALLBACK)]).toEqual([
      FALLBACK,
      FALLBACK,
      FALLBACK,
    ]);
  });

  it("names the statement part of every control of the ISM release as ASD's catalogue does", () => {
    const controls = ismRelease().entries;
    expect(controls.map((c) => statementIdOf({ catalogue_id: c.id }))).toEqual(controls.map((c) => ismStatementIds().get(c.id)));
  });

  it('makes a name one line without surrounding whitespace, and a blank one null', () => {
    expect([line(' Alex\n  Assessor\t'), line(' \n '), line(null)]).toEqual(['Alex Assessor', null, null]);
  });
});
