import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { type Entry, fromBufferPromise, type ZipFile } from 'yauzl';
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

const malformed = (detail: string) => new ImportRejected('malformed_xlsx', `not readable as an XLSX workbook: ${detail}`);
const tooLarge = (detail: string) => new ImportRejected('workbook_too_large', `the workbook ${detail}`);
/** yauzl's reason is kept short: it may quote a name from the file. */
const refused = (detail: string, error: unknown) => malformed(`${detail} (${error instanceof Error ? error.message.slice(0, 120) : 'unreadable'})`);
const partName = (entry: Entry) => entry.fileName.slice(0, 80);

/**
 * Checks a workbook's ZIP before it is parsed, reading it with yauzl: the entry count and the
 * uncompressed sizes its central directory declares, then the bytes each entry really inflates to
 * (streamed and discarded; yauzl fails an entry as soon as it passes its declared size, or ends
 * short of it). The entries must tile the file up to the central directory, each ending where the
 * streaming reader (which follows local headers) ends it, so that it meets exactly these entries
 * and no hidden one.
 *
 * Answers the entries (local header, data and descriptor, as they lie in the file) in the order
 * exceljs's streaming reader needs to read every sheet as it arrives: the workbook's relationships,
 * its styles and its shared strings (an empty part when it has none) before the sheets. Met in
 * another order, the reader parks each sheet in a temporary file that it leaves behind whenever
 * reading stops early.
 */
export async function readablePackage(bytes: Uint8Array): Promise<Uint8Array[]> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await fromBufferPromise(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true }).catch((e: unknown) => {
    throw refused('no readable ZIP end record', e);
  });
  try {
    const spans = await entrySpans(zip, await declaredEntries(zip), file);
    if (!spans.has(RELATIONSHIPS)) throw malformed(`it has no ${RELATIONSHIPS}`);
    const first = [RELATIONSHIPS, 'xl/workbook.xml', 'xl/styles.xml'].flatMap((name) => spans.get(name) ?? []);
    const rest = [...spans].filter(([name]) => !READ_FIRST.has(name)).map(([, span]) => span);
    return [...first, spans.get(SHARED_STRINGS) ?? NO_SHARED_STRINGS, ...rest];
  } finally {
    zip.close();
  }
}

const RELATIONSHIPS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';
const READ_FIRST = new Set([RELATIONSHIPS, 'xl/workbook.xml', 'xl/styles.xml', SHARED_STRINGS]);
const NO_SHARED_STRINGS = storedEntry(SHARED_STRINGS, '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>');

/** A local entry of uncompressed content (no ZIP writer is a dependency, and this one is 30 bytes of header). */
function storedEntry(name: string, content: string): Uint8Array {
  const nameBytes = Buffer.from(name);
  const data = Buffer.from(content);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt32LE(crc32(data), 14);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  return new Uint8Array(Buffer.concat([header, nameBytes, data]));
}

/** The central directory's entries, once their count and declared sizes are within the limits. */
async function declaredEntries(zip: ZipFile): Promise<Entry[]> {
  if (zip.entryCount > ARCHIVE_LIMITS.entries) throw tooLarge(`has ${zip.entryCount} parts; at most ${ARCHIVE_LIMITS.entries} are read`);
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (e) {
    throw refused('an unreadable or unsafe central directory entry', e);
  }
  let total = 0;
  for (const entry of entries) {
    // A ZIP64 size yauzl could not resolve stays 0xffffffff, beyond the part limit.
    if (entry.uncompressedSize > ARCHIVE_LIMITS.entryBytes) throw tooLarge(`part ${partName(entry)} declares more than ${ARCHIVE_LIMITS.entryBytes} bytes`);
    total += entry.uncompressedSize;
    if (total > ARCHIVE_LIMITS.totalBytes) throw tooLarge(`declares more than ${ARCHIVE_LIMITS.totalBytes} bytes uncompressed`);
  }
  return entries;
}

/**
 * Each entry's span (local header, data, descriptor) by name, once the spans tile the file from its
 * start and the directory's records and end record fill the rest. yauzl does not tell where the
 * directory starts, so its length is summed from the records' fields; a ZIP64 end record (which a
 * workbook within the upload limit never needs) leaves the sum short.
 */
async function entrySpans(zip: ZipFile, entries: Entry[], file: Buffer): Promise<Map<string, Uint8Array>> {
  const spans = new Map<string, Uint8Array>();
  let expected = 0;
  for (const entry of [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader)) {
    if (entry.relativeOffsetOfLocalHeader !== expected) throw malformed('its entries do not follow one another');
    const local = await zip.readLocalFileHeaderPromise(entry).catch((e: unknown) => {
      throw refused(`part ${partName(entry)} has a damaged local header`, e);
    });
    // The streaming reader goes by the local header (its name read as UTF-8), the order given to it by the directory's.
    // It takes the header's compressed size, unless the header defers its sizes: then the data ends at the first descriptor signature.
    const deferred = (local.generalPurposeBitFlag & 8) !== 0 && local.compressedSize === 0;
    if (
      local.fileName.toString('utf8') !== entry.fileName ||
      local.compressionMethod !== entry.compressionMethod ||
      (!deferred && local.compressedSize !== entry.compressedSize)
    ) {
      throw malformed(`part ${partName(entry)} has a local header that disagrees with its central directory entry`);
    }
    const dataEnd = local.fileDataStart + entry.compressedSize;
    if (deferred && file.subarray(local.fileDataStart, dataEnd + 4).indexOf(DESCRIPTOR) !== entry.compressedSize) {
      throw malformed(`part ${partName(entry)} does not end at its data descriptor`);
    }
    expected = dataEnd + (deferred ? DESCRIPTOR_LENGTH : 0);
    await inflate(zip, entry);
    spans.set(entry.fileName, file.subarray(entry.relativeOffsetOfLocalHeader, expected));
  }
  const directory = entries.reduce((sum, e) => sum + 46 + e.fileNameLength + e.extraFieldLength + e.fileCommentLength, 0);
  // The end record is 22 bytes and its comment, which yauzl decodes as CP437, a character a byte.
  if (expected + directory + 22 + zip.comment.length !== file.length) throw malformed('its entries do not reach the central directory');
  return spans;
}

/** A data descriptor's signature; the streaming reader reads it and the 12 bytes of sizes after it. */
const DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);
const DESCRIPTOR_LENGTH = 16;

/** Inflates an entry into nothing: yauzl counts the bytes, refusing a method or encryption it cannot decode. */
async function inflate(zip: ZipFile, entry: Entry): Promise<void> {
  try {
    await pipeline(await zip.openReadStreamPromise(entry), new Writable({ write: (_chunk, _encoding, done) => done() }));
  } catch (e) {
    throw refused(`part ${partName(entry)} cannot be inflated as its directory entry declares`, e);
  }
}
