import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseCcm } from '../../../../lib/domain/imports/ccm.js';
import { ImportRejected, LIMITS } from '../../../../lib/domain/imports/rows.js';
import { ARCHIVE_LIMITS } from '../../../../lib/domain/imports/xlsx-archive.js';
import { HEADER, matrixRow, xlsxBytes } from '../../../support/matrices.js';
import { sheetXml, workbookParts, type ZipPart, zipBytes } from '../../../support/zip-archives.js';

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => (e instanceof ImportRejected ? e.code : e),
  );

/** Text rows of a matrix: the header and `count` provider rows. */
const rows = (count: number) => [HEADER, ...Array.from({ length: count }, (_, i) => matrixRow(String(i + 1), 'Provider') as string[])];

/** A one-sheet workbook of the given rows, with each part changed as `change` says. */
const workbook = (table: string[][], change: (parts: ZipPart[]) => ZipPart[] = (p) => p) => zipBytes(change(workbookParts(sheetXml(table))));

/** The local entry of a sheet of the given rows, listed in no directory, as bytes another part's data can carry. */
const hiddenSheet = (table: string[][]) => {
  const zip = zipBytes([{ name: 'xl/worksheets/sheet1.xml', data: sheetXml(table), hidden: true }]);
  return zip.subarray(0, zip.length - 22);
};

const withSheet = (fields: Partial<ZipPart>) => (parts: ZipPart[]) => parts.map((p) => (p.name === 'xl/worksheets/sheet1.xml' ? { ...p, ...fields } : p));

describe('parseCcm on a hostile XLSX', () => {
  it('reads the hand-written workbook these tests make hostile', async () => {
    expect((await parseCcm(workbook(rows(2)))).rows.map((r) => r.control_id)).toEqual(['ism-0001', 'ism-0002']);
  });

  it('refuses a sheet of more rows than the limit (too_many_rows)', async () => {
    expect(await rejection(parseCcm(workbook(rows(LIMITS.rows + 1))))).toBe('too_many_rows');
  });

  it('stops reading a sheet once it passes the row limit, before the rest of it', async () => {
    const sheet = sheetXml(rows(LIMITS.rows * 2), '<row r="999999"><c r="A999999" t="inlineStr"><is><t>unclosed');
    expect(await rejection(parseCcm(zipBytes(workbookParts(sheet))))).toBe('too_many_rows');
  });

  it('refuses a part declaring more than the part limit before parsing (workbook_too_large)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ declaredSize: ARCHIVE_LIMITS.entryBytes + 1 }))))).toBe('workbook_too_large');
  });

  it('refuses parts declaring more than the total limit together (workbook_too_large)', async () => {
    const media = [1, 2].map((i) => ({ name: `xl/media/image${i}.bin`, data: 'x', declaredSize: ARCHIVE_LIMITS.entryBytes }));
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [...parts, ...media])))).toBe('workbook_too_large');
  });

  it('refuses more parts than the limit (workbook_too_large)', async () => {
    const extra = Array.from({ length: ARCHIVE_LIMITS.entries }, (_, i) => ({ name: `docProps/part${i}.xml`, data: '<a/>' }));
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [...parts, ...extra])))).toBe('workbook_too_large');
  });

  it('refuses a part that inflates beyond the size it declares (malformed_xlsx)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ declaredSize: 100 }))))).toBe('malformed_xlsx');
  });

  it('refuses a part that inflates to less than it declares (malformed_xlsx)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ declaredSize: 100_000 }))))).toBe('malformed_xlsx');
  });

  it('refuses a part its central directory does not list (malformed_xlsx)', async () => {
    const hidden = { name: 'xl/worksheets/sheet2.xml', data: sheetXml(rows(1)), hidden: true };
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [hidden, ...parts])))).toBe('malformed_xlsx');
  });

  it('refuses an unlisted part between the last listed one and the central directory (malformed_xlsx)', async () => {
    const hidden = { name: 'xl/worksheets/sheet2.xml', data: sheetXml(rows(1)), hidden: true };
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [...parts, hidden])))).toBe('malformed_xlsx');
  });

  it('refuses a part whose local header gives a shorter compressed size than its sizes after its data (malformed_xlsx)', async () => {
    // The streaming reader takes the local header's size and meets the hidden sheet next.
    const cover = Buffer.from('<a/>');
    const carrier = {
      name: 'docProps/custom.xml',
      data: Buffer.concat([cover, hiddenSheet(rows(3))]),
      method: 0,
      descriptor: true,
      localCompressedSize: cover.length,
    };
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [carrier, ...parts])))).toBe('malformed_xlsx');
  });

  it('refuses a part whose data holds a data descriptor signature before its end (malformed_xlsx)', async () => {
    // The streaming reader ends a part of deferred sizes at the first signature and meets the hidden sheet after it.
    const early = Buffer.concat([Buffer.from('<a/>'), Buffer.from([0x50, 0x4b, 0x07, 0x08]), Buffer.alloc(12), hiddenSheet(rows(3))]);
    const carrier = { name: 'docProps/custom.xml', data: early, method: 0, descriptor: true };
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [carrier, ...parts])))).toBe('malformed_xlsx');
  });

  it('refuses a part whose name climbs out of the package (malformed_xlsx)', async () => {
    const outside = { name: '../outside.xml', data: '<a/>' };
    expect(await rejection(parseCcm(workbook(rows(1), (parts) => [...parts, outside])))).toBe('malformed_xlsx');
  });

  it('refuses a part compressed by another method than deflate (malformed_xlsx)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ method: 12 }))))).toBe('malformed_xlsx');
  });

  it('refuses an encrypted part (malformed_xlsx)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ encrypted: true }))))).toBe('malformed_xlsx');
  });

  it('reads a workbook whose parts give their sizes in data descriptors, as streaming writers do', async () => {
    const parsed = await parseCcm(workbook(rows(2), (parts) => parts.map((p) => ({ ...p, descriptor: true }))));
    expect(parsed.rows.map((r) => r.control_id)).toEqual(['ism-0001', 'ism-0002']);
  });

  it('refuses a part whose local header names another part than its directory entry (malformed_xlsx)', async () => {
    expect(await rejection(parseCcm(workbook(rows(1), withSheet({ localName: 'xl/worksheets/sheet9.xml' }))))).toBe('malformed_xlsx');
  });

  it('leaves no temporary file behind when the sheet comes before the shared strings (as exceljs and Excel store them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccm-'));
    vi.stubEnv('TMPDIR', dir);
    try {
      await parseCcm(await xlsxBytes(rows(2)));
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
