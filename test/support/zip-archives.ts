import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A part of a generated ZIP. `declaredSize` overrides the uncompressed size the archive states
 * (a hostile file's lie); `hidden` leaves the entry out of the central directory; `localName`
 * gives its local header another name than the directory's; `descriptor` moves the local header's
 * sizes into a data descriptor after the data, as streaming writers do; `method` names the
 * compression method in both headers (0 stores the data as it is; any other leaves it deflated)
 * and `encrypted` claims encryption in both (the data stays plain); `localCompressedSize` is the
 * compressed size the local header states, even with a descriptor.
 */
export interface ZipPart {
  name: string;
  data: Uint8Array | string;
  declaredSize?: number;
  hidden?: boolean;
  localName?: string;
  descriptor?: boolean;
  method?: number;
  encrypted?: boolean;
  localCompressedSize?: number;
}

/** A ZIP of deflated parts with local headers and a central directory, as spreadsheet applications write them. */
export function zipBytes(parts: readonly ZipPart[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  let listed = 0;
  for (const part of parts) {
    const data = typeof part.data === 'string' ? Buffer.from(part.data) : Buffer.from(part.data);
    const method = part.method ?? 8;
    const compressed = method === 0 ? data : deflateRawSync(data);
    const name = Buffer.from(part.name);
    const localName = Buffer.from(part.localName ?? part.name);
    const size = part.declaredSize ?? data.length;
    const flags = (part.descriptor ? 8 : 0) | (part.encrypted ? 1 : 0);
    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(crc32(data), 0);
    sizes.writeUInt32LE(compressed.length, 4);
    sizes.writeUInt32LE(size, 8);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    if (!part.descriptor) sizes.copy(local, 14);
    if (part.localCompressedSize !== undefined) local.writeUInt32LE(part.localCompressedSize, 18);
    local.writeUInt16LE(localName.length, 26);
    const descriptor = part.descriptor ? Buffer.concat([Buffer.from([0x50, 0x4b, 0x07, 0x08]), sizes]) : Buffer.alloc(0);
    locals.push(local, localName, compressed, descriptor);
    if (!part.hidden) {
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4);
      central.writeUInt16LE(20, 6);
      central.writeUInt16LE(flags, 8);
      central.writeUInt16LE(method, 10);
      central.writeUInt32LE(crc32(data), 16);
      central.writeUInt32LE(compressed.length, 20);
      central.writeUInt32LE(size, 24);
      central.writeUInt16LE(name.length, 28);
      central.writeUInt32LE(offset, 42);
      centrals.push(central, name);
      listed++;
    }
    offset += 30 + localName.length + compressed.length + descriptor.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const SHEET = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

const cell = (value: string, column: number, row: number) =>
  `<c r="${String.fromCharCode(65 + column)}${row}" t="inlineStr"><is><t>${value.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</t></is></c>`;

/** Sheet XML of rows of text cells (inline strings), numbered from 1, with `tail` appended inside sheetData. */
export function sheetXml(rows: readonly (readonly string[])[], tail = ''): string {
  const body = rows.map((cells, r) => `<row r="${r + 1}">${cells.map((v, c) => cell(v, c, r + 1)).join('')}</row>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${SHEET}"><sheetData>${body}${tail}</sheetData></worksheet>`;
}

/** The parts of a one-sheet workbook around the given sheet XML, hand-written so a test can make any of them hostile. */
export function workbookParts(sheet: string): ZipPart[] {
  return [
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PACKAGE_RELATIONSHIPS}"><Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${SHEET}" xmlns:r="${RELATIONSHIPS}"><sheets><sheet name="Matrix" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PACKAGE_RELATIONSHIPS}"><Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheet },
  ];
}
