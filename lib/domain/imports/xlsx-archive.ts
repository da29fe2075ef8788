import { crc32, createInflateRaw } from 'node:zlib';
import { ImportRejected } from './rows.js';

/**
 * What a workbook's ZIP may hold before anything parses it. A matrix at the row limit with long
 * statements is about 10 MiB of XML (its shared strings); the limits leave room for several times
 * that, and bound what the reader keeps (the shared strings) well inside the worker's memory.
 */
export const ARCHIVE_LIMITS = {
  /** Parts of the package (an XLSX has about 15; one per sheet, image or other part beyond that). */
  entries: 1_000,
  /** Uncompressed bytes of one part. */
  entryBytes: 64 * 1024 * 1024,
  /** Uncompressed bytes of all parts together. */
  totalBytes: 128 * 1024 * 1024,
} as const;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const DESCRIPTOR = 0x08074b50;
const STORED = 0;
const DEFLATED = 8;
/** A 32-bit size or offset of this value defers to a ZIP64 record: more than a workbook within the upload limit needs. */
const ZIP64 = 0xffffffff;

const malformed = (detail: string) => new ImportRejected('malformed_xlsx', `not readable as an XLSX workbook: ${detail}`);
const tooLarge = (detail: string) => new ImportRejected('workbook_too_large', `the workbook ${detail}`);

interface Entry {
  name: string;
  flags: number;
  method: number;
  compressed: number;
  size: number;
  offset: number;
}

/**
 * Checks a workbook's ZIP before it is parsed: the entry count and the uncompressed sizes its
 * central directory declares, then the bytes each entry really inflates to (streamed and counted,
 * never kept), stopping at the declared size. The entries must tile the archive up to the central
 * directory, so the streaming reader (which follows local headers from the start) meets exactly
 * these entries and no hidden one.
 *
 * Answers the entries (local header, data and descriptor, as they lie in the file) in the order
 * exceljs's streaming reader needs to read every sheet as it arrives: the workbook's relationships,
 * its styles and its shared strings (an empty part when it has none) before the sheets. Met in
 * another order, the reader parks each sheet in a temporary file that it leaves behind whenever
 * reading stops early.
 */
export async function readablePackage(bytes: Uint8Array): Promise<Uint8Array[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries, start } = centralDirectory(view, bytes);
  let total = 0;
  for (const e of entries) {
    if (e.size === ZIP64 || e.size > ARCHIVE_LIMITS.entryBytes)
      throw tooLarge(`part ${e.name.slice(0, 80)} declares more than ${ARCHIVE_LIMITS.entryBytes} bytes`);
    total += e.size;
    if (total > ARCHIVE_LIMITS.totalBytes) throw tooLarge(`declares more than ${ARCHIVE_LIMITS.totalBytes} bytes uncompressed`);
  }
  const spans = new Map<string, Uint8Array>();
  let expected = 0;
  for (const e of [...entries].sort((a, b) => a.offset - b.offset)) {
    if (e.offset !== expected) throw malformed('its entries do not follow one another');
    const data = localData(view, e);
    expected = data.end + descriptorLength(view, e.flags, data.end);
    if ((await inflatedLength(bytes.subarray(data.start, data.end), e)) !== e.size)
      throw malformed(`part ${e.name.slice(0, 80)} does not inflate to its declared size`);
    spans.set(e.name, bytes.subarray(e.offset, expected));
  }
  if (expected !== start) throw malformed('its entries do not reach the central directory');
  if (!spans.has(RELATIONSHIPS)) throw malformed(`it has no ${RELATIONSHIPS}`);
  const first = [RELATIONSHIPS, 'xl/workbook.xml', 'xl/styles.xml'].flatMap((name) => spans.get(name) ?? []);
  const rest = [...spans].filter(([name]) => !READ_FIRST.has(name)).map(([, span]) => span);
  return [...first, spans.get(SHARED_STRINGS) ?? NO_SHARED_STRINGS, ...rest];
}

const RELATIONSHIPS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';
const READ_FIRST = new Set([RELATIONSHIPS, 'xl/workbook.xml', 'xl/styles.xml', SHARED_STRINGS]);
const NO_SHARED_STRINGS = storedEntry(SHARED_STRINGS, '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>');

/** A local entry of uncompressed content. */
function storedEntry(name: string, content: string): Uint8Array {
  const nameBytes = Buffer.from(name);
  const data = Buffer.from(content);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt32LE(crc32(data), 14);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  return new Uint8Array(Buffer.concat([header, nameBytes, data]));
}

function endRecord(view: DataView): number {
  // The end record is the last 22 bytes plus a comment of at most 65,535.
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw malformed('no ZIP end record');
}

function centralDirectory(view: DataView, bytes: Uint8Array): { entries: Entry[]; start: number } {
  const end = endRecord(view);
  const count = view.getUint16(end + 10, true);
  if (count > ARCHIVE_LIMITS.entries) throw tooLarge(`has ${count} parts; at most ${ARCHIVE_LIMITS.entries} are read`);
  const start = view.getUint32(end + 16, true);
  if (start === ZIP64 || start > end) throw malformed('its central directory lies outside the file');
  let at = start;
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw malformed('a damaged central directory');
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressed: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return { entries, start };
}

/** Where an entry's compressed data lies, once its local header agrees with the central directory. */
function localData(view: DataView, e: Entry): { start: number; end: number } {
  if (e.flags & 1) throw malformed('it is encrypted');
  if (e.method !== STORED && e.method !== DEFLATED) throw malformed(`part ${e.name.slice(0, 80)} uses compression method ${e.method}`);
  if (e.offset + 30 > view.byteLength || view.getUint32(e.offset, true) !== LOCAL) throw malformed('a damaged local header');
  const sizesHere = (e.flags & 8) === 0;
  const nameLength = view.getUint16(e.offset + 26, true);
  // The streaming reader goes by the local header's name, the order given to it by the directory's.
  const name = new TextDecoder().decode(new Uint8Array(view.buffer, view.byteOffset + e.offset + 30, Math.min(nameLength, view.byteLength - e.offset - 30)));
  if (name !== e.name || view.getUint16(e.offset + 8, true) !== e.method || (sizesHere && view.getUint32(e.offset + 18, true) !== e.compressed)) {
    throw malformed(`part ${e.name.slice(0, 80)} has a local header that disagrees with its central directory entry`);
  }
  const start = e.offset + 30 + nameLength + view.getUint16(e.offset + 28, true);
  const end = start + e.compressed;
  if (end > view.byteLength) throw malformed('an entry runs past the end of the file');
  return { start, end };
}

/** The data descriptor after an entry whose sizes follow its data: 12 bytes, or 16 with its optional signature. */
function descriptorLength(view: DataView, flags: number, at: number): number {
  if ((flags & 8) === 0) return 0;
  return at + 4 <= view.byteLength && view.getUint32(at, true) === DESCRIPTOR ? 16 : 12;
}

/** The entry's inflated length, counted chunk by chunk and abandoned one chunk past the declared size. */
async function inflatedLength(data: Uint8Array, e: Entry): Promise<number> {
  if (e.method === STORED) return data.length;
  const inflater = createInflateRaw();
  inflater.end(data);
  let length = 0;
  try {
    for await (const chunk of inflater) {
      length += (chunk as Buffer).length;
      if (length > e.size) break;
    }
  } catch {
    throw malformed(`part ${e.name.slice(0, 80)} is not valid deflate data`);
  } finally {
    inflater.destroy();
  }
  return length;
}
