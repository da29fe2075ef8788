import { describe, expect, it } from 'vitest';
import { detectType, mismatchOf, typeMismatch } from '../../../lib/files/detect.js';
import { PROFILES } from '../../../lib/files/profiles.js';
import { PDF, png } from '../../support/files.js';

const as = (declaredType: string, fileName = 'file') => ({ declaredType, fileName });
const artefact = PROFILES['provider-artefact'];
const text = (value: string) => Buffer.from(value, 'utf8');

describe('detectType', () => {
  it('answers the type of the magic bytes when the profile takes it', async () => {
    expect(await detectType(PDF, artefact, undefined)).toBe('application/pdf');
  });

  it('answers nothing for a type of magic bytes the profile refuses', async () => {
    expect(await detectType(png(20, 20), artefact, as('image/png', 'x.png'))).toBeUndefined();
  });

  it('takes UTF-8 text as the text type claimed', async () => {
    expect(await detectType(text('ISM,Responsibility\n1691,Provider\n'), artefact, as('text/csv', 'matrix.csv'))).toBe('text/csv');
  });

  it('takes no text without a claim', async () => {
    expect(await detectType(text('plain words'), artefact, undefined)).toBeUndefined();
  });

  it('refuses text with a NUL byte', async () => {
    expect(await detectType(Buffer.from([0x61, 0x00, 0x62]), artefact, as('text/plain'))).toBeUndefined();
  });

  it('refuses bytes that are not UTF-8', async () => {
    expect(await detectType(Buffer.from([0x61, 0xff, 0x62]), artefact, as('text/plain'))).toBeUndefined();
  });

  it('refuses JSON that does not parse', async () => {
    expect(await detectType(text('{"a":'), artefact, as('application/json'))).toBeUndefined();
  });
});

describe('mismatchOf', () => {
  it('finds none when the declaration and name agree with the type', () => {
    expect(mismatchOf('application/pdf', as('application/pdf', 'report.pdf'))).toBeUndefined();
  });

  it('finds none when neither says anything', () => {
    expect(mismatchOf('application/pdf', as('', 'report'))).toBeUndefined();
  });

  it('reports a declared type that says another type', () => {
    expect(mismatchOf('application/pdf', as('image/png', 'report.pdf'))).toEqual({
      detectedType: 'application/pdf',
      declaredType: 'image/png',
      extension: 'pdf',
    });
  });

  it('reports a name that says another type', () => {
    expect(mismatchOf('application/pdf', as('application/pdf', 'report.html'))).toEqual({
      detectedType: 'application/pdf',
      declaredType: 'application/pdf',
      extension: 'html',
    });
  });
});

describe('typeMismatch', () => {
  it('reports nothing for bytes the profile does not take: those are refused as unsupported instead', async () => {
    expect(await typeMismatch(png(20, 20), artefact, as('application/pdf', 'x.pdf'))).toBeUndefined();
  });
});
