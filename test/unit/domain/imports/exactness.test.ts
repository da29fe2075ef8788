import { describe, expect, it } from 'vitest';
import { exactness, releaseText } from '../../../../lib/domain/imports/exactness.js';
import type { ImportedRow } from '../../../../lib/domain/imports/rows.js';
import { ismRelease } from '../../../support/document-model.js';

const release = () => releaseText(ismRelease().version, ismRelease().entries);
const statementOf = (id: string) => ismRelease().entries.find((e) => e.id === id)!.statement;
const row = (control_id: string, extra: Partial<ImportedRow> = {}) => ({ control_id, control_text: null, ism_version: null, ...extra });

/** A number the release does not use as a control id (ISM numbers have gaps). */
const absentId = () => {
  const used = release().statements;
  for (let n = 1; ; n++) {
    const id = `ism-${String(n).padStart(4, '0')}`;
    if (!used.has(id)) return id;
  }
};

describe('exactness against ISM 2025.12.9', () => {
  it('is exact for a control of the release without text', () => {
    expect(exactness(row('ism-1691'), release())).toEqual({ exact: true });
  });

  it("is exact when the text equals the release's statement up to whitespace", () => {
    const text = `  ${statementOf('ism-1691').replace(/ /g, '\n  ')} `;
    expect(exactness(row('ism-1691', { control_text: text }), release())).toEqual({ exact: true });
  });

  it('needs review when the text differs', () => {
    const text = statementOf('ism-1691').replace('two weeks', 'one month');
    expect(exactness(row('ism-1691', { control_text: text }), release())).toMatchObject({ exact: false, reason: 'text_differs' });
  });

  it('needs review for an id no release has', () => {
    expect(exactness(row(absentId()), release())).toMatchObject({ exact: false, reason: 'unknown_control' });
  });

  it('needs review, naming the release, for an id of another installed release only', () => {
    const id = absentId();
    expect(exactness(row(id), release(), [{ version: '2024.06.1', controls: new Set([id]) }])).toEqual({
      exact: false,
      reason: 'other_ism_release',
      detail: `${id} is not in ISM 2025.12.9; it is in ISM 2024.06.1`,
    });
  });

  it('needs review when the row says it was written against another ISM version', () => {
    expect(exactness(row('ism-1691', { ism_version: 'ISM 2024.06.1' }), release())).toMatchObject({ exact: false, reason: 'other_ism_release' });
  });

  it("is exact when the row names the release's own version with a prefix", () => {
    expect(exactness(row('ism-1691', { ism_version: 'v2025.12.9' }), release())).toEqual({ exact: true });
  });
});
