import { describe, expect, it } from 'vitest';
import { typeMismatch } from '../../../lib/files/detect.js';
import { inspect } from '../../../lib/files/inspect.js';
import { claimedTextType, PROFILES } from '../../../lib/files/profiles.js';
import { officeDocument, PDF, png } from '../../support/files.js';

const evidence = PROFILES.evidence;
/** The least a JPEG needs for type detection and image-size: SOI, a JFIF APP0 and a 32 by 32 SOF0. */
const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
const SOF0 = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x20, 0x00, 0x20, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
const jpg = () => Buffer.from([...JPEG_HEAD, ...SOF0, 0xff, 0xd9]);
const as = (declaredType: string, fileName = 'file') => ({ declaredType, fileName });

describe('the evidence profile', () => {
  it('takes PDF and images by their magic bytes when nothing they are called says otherwise', async () => {
    expect(await inspect(PDF, evidence, as('application/octet-stream', 'report'))).toEqual({ detectedType: 'application/pdf' });
    expect(await inspect(png(20, 20), evidence, as('image/png', 'screen.PNG'))).toEqual({ detectedType: 'image/png' });
  });

  it('takes Word, Excel and PowerPoint documents by the main part their package declares', async () => {
    const base = 'application/vnd.openxmlformats-officedocument';
    expect(await inspect(officeDocument(), evidence)).toEqual({ detectedType: `${base}.wordprocessingml.document` });
    expect(await inspect(officeDocument(`${base}.spreadsheetml.sheet.main+xml`, 'xl'), evidence)).toEqual({ detectedType: `${base}.spreadsheetml.sheet` });
    expect(await inspect(officeDocument(`${base}.presentationml.presentation.main+xml`, 'ppt'), evidence)).toEqual({
      detectedType: `${base}.presentationml.presentation`,
    });
  });

  it('refuses macro-enabled Office documents and other zips', async () => {
    const macros = officeDocument('application/vnd.ms-word.document.macroEnabled.main+xml');
    expect(await inspect(macros, evidence, as('application/octet-stream', 'a.docx'))).toEqual({ rejected: 'unsupported_type' });
  });

  it('takes text as the text type its declared media type names', async () => {
    const csv = Buffer.from('host,port\nweb-01,443\n');
    expect(await inspect(csv, evidence, as('text/csv', 'hosts'))).toEqual({ detectedType: 'text/csv' });
    expect(await inspect(csv, evidence, as('text/plain; charset=utf-8', 'hosts.txt'))).toEqual({ detectedType: 'text/plain' });
  });

  it('takes the text type from the extension when the declared type says nothing (upload sessions)', async () => {
    const json = Buffer.from('{"mfa": true}');
    expect(await inspect(json, evidence, as('application/octet-stream', 'settings.JSON'))).toEqual({ detectedType: 'application/json' });
    expect(await inspect(json, evidence, as('application/octet-stream', 'settings'))).toEqual({ rejected: 'unsupported_type' });
    expect(await inspect(json, evidence, as('image/png', 'settings.json'))).toEqual({ rejected: 'unsupported_type' });
  });

  it('refuses text with NUL bytes, bytes that are not UTF-8, and JSON that does not parse', async () => {
    expect(await inspect(Buffer.from('a\u0000b'), evidence, as('text/plain'))).toEqual({ rejected: 'unsupported_type' });
    expect(await inspect(Buffer.from([0x61, 0xc3, 0x28]), evidence, as('text/plain'))).toEqual({ rejected: 'unsupported_type' });
    expect(await inspect(Buffer.from('{"mfa": '), evidence, as('application/json'))).toEqual({ rejected: 'unsupported_type' });
  });

  it('keeps the text rule to profiles that take text', async () => {
    expect(await inspect(Buffer.from('plain words'), PROFILES['organisation-logo'], as('text/plain'))).toEqual({ rejected: 'unsupported_type' });
  });
});

describe('the claim', () => {
  it('refuses a file whose declared media type says another type', async () => {
    expect(await inspect(PDF, evidence, as('image/png', 'x'))).toEqual({ rejected: 'file_type_mismatch' });
    expect(await inspect(png(20, 20), evidence, as('text/plain'))).toEqual({ rejected: 'file_type_mismatch' });
  });

  it("refuses a file whose name's extension says another type", async () => {
    expect(await inspect(PDF, evidence, as('application/pdf', 'x.png'))).toEqual({ rejected: 'file_type_mismatch' });
    expect(await inspect(PDF, evidence, as('application/octet-stream', 'x.html'))).toEqual({ rejected: 'file_type_mismatch' });
    expect(await inspect(Buffer.from('a,b'), evidence, as('text/plain', 'hosts.csv'))).toEqual({ rejected: 'file_type_mismatch' });
  });

  it('reads the extension as a desktop does, without trailing dots and spaces', async () => {
    expect(await inspect(PDF, evidence, as('application/pdf', 'x.html. '))).toEqual({ rejected: 'file_type_mismatch' });
  });

  it('takes every extension of a type and the other names clients give JPEG', async () => {
    const jpeg = await inspect(jpg(), PROFILES['organisation-logo'], as('image/jpg', 'photo.JPEG'));
    expect(jpeg).toMatchObject({ detectedType: 'image/jpeg' });
  });

  it('names what the bytes are and what the claim says', async () => {
    expect(await typeMismatch(PDF, evidence, as('image/png; q=1', 'x.png'))).toEqual({
      detectedType: 'application/pdf',
      declaredType: 'image/png',
      extension: 'png',
    });
    expect(await typeMismatch(PDF, evidence, as('', 'x.png'))).toEqual({ detectedType: 'application/pdf', declaredType: undefined, extension: 'png' });
    expect(await typeMismatch(PDF, evidence, as('application/pdf', 'x.pdf'))).toBeUndefined();
  });

  it('leaves a type the profile refuses to unsupported_type, whatever it is called', async () => {
    expect(await typeMismatch(PDF, PROFILES['organisation-logo'], as('image/png', 'x.png'))).toBeUndefined();
    expect(await inspect(PDF, PROFILES['organisation-logo'], as('image/png', 'x.png'))).toEqual({ rejected: 'unsupported_type' });
  });
});

describe('claimedTextType', () => {
  it('reads an extension only after a dot', () => {
    expect(claimedTextType(evidence, as('', 'csv'))).toBeUndefined();
    expect(claimedTextType(evidence, as('', 'report.csv'))).toBe('text/csv');
    expect(claimedTextType(evidence, as('application/octet-stream', 'a.constructor'))).toBeUndefined();
  });
});
