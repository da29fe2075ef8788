import { describe, expect, it } from 'vitest';
import { inspect } from '../../../lib/files/inspect.js';
import { claimedTextType, PROFILES } from '../../../lib/files/profiles.js';
import { officeDocument, PDF, png } from '../../support/files.js';

const evidence = PROFILES.evidence;
const as = (declaredType: string, fileName = 'file') => ({ declaredType, fileName });

describe('the evidence profile', () => {
  it('takes PDF and images by their magic bytes, whatever they are called', async () => {
    expect(await inspect(PDF, evidence, as('application/octet-stream', 'x.bin'))).toEqual({ detectedType: 'application/pdf' });
    expect(await inspect(png(20, 20), evidence, as('text/plain', 'x.txt'))).toEqual({ detectedType: 'image/png' });
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
    expect(await inspect(csv, evidence, as('text/csv', 'hosts.dat'))).toEqual({ detectedType: 'text/csv' });
    expect(await inspect(csv, evidence, as('text/plain; charset=utf-8', 'hosts.csv'))).toEqual({ detectedType: 'text/plain' });
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

describe('claimedTextType', () => {
  it('reads an extension only after a dot', () => {
    expect(claimedTextType(evidence, as('', 'csv'))).toBeUndefined();
    expect(claimedTextType(evidence, as('', 'report.csv'))).toBe('text/csv');
    expect(claimedTextType(evidence, as('application/octet-stream', 'a.constructor'))).toBeUndefined();
  });
});
