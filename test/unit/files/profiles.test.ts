import { describe, expect, it } from 'vitest';
import { claimedTextType, declaredMediaType, extensionFits, extensionOf, PROFILES } from '../../../lib/files/profiles.js';

const as = (declaredType: string, fileName = 'file') => ({ declaredType, fileName });

describe('declaredMediaType', () => {
  it('answers the media type without parameters, lower case', () => {
    expect(declaredMediaType(as('Text/CSV; charset=utf-8'))).toBe('text/csv');
  });

  it('says nothing for an empty or generic declaration', () => {
    expect([declaredMediaType(as('')), declaredMediaType(as('application/octet-stream'))]).toEqual([undefined, undefined]);
  });

  it('reads the names some clients send for JPEG as image/jpeg', () => {
    expect([declaredMediaType(as('image/jpg')), declaredMediaType(as('image/pjpeg'))]).toEqual(['image/jpeg', 'image/jpeg']);
  });
});

describe('extensionOf', () => {
  it('answers the last extension, lower case', () => {
    expect(extensionOf('Report.Final.PDF')).toBe('pdf');
  });

  it('ignores trailing dots and spaces, as Windows drops them', () => {
    expect(extensionOf('x.html. . ')).toBe('html');
  });

  it('answers nothing for a name without a dot', () => {
    expect(extensionOf('README')).toBeUndefined();
  });
});

describe('extensionFits', () => {
  it('takes each of the names a type goes by', () => {
    expect(['jpg', 'jpeg', 'jpe', 'jfif'].every((ext) => extensionFits('image/jpeg', ext))).toBe(true);
  });

  it('refuses a name that says another type', () => {
    expect(extensionFits('application/pdf', 'png')).toBe(false);
  });

  it('takes a name without an extension, which says nothing', () => {
    expect(extensionFits('application/pdf', undefined)).toBe(true);
  });
});

describe('claimedTextType', () => {
  const artefact = PROFILES['provider-artefact'];

  it('answers the text type the declared media type names', () => {
    expect(claimedTextType(artefact, as('text/csv', 'matrix.txt'))).toBe('text/csv');
  });

  it('falls back to the extension when the declaration says nothing', () => {
    expect(claimedTextType(artefact, as('application/octet-stream', 'settings.JSON'))).toBe('application/json');
  });

  it('claims no text type for a file declared as anything else', () => {
    expect(claimedTextType(artefact, as('application/pdf', 'matrix.csv'))).toBeUndefined();
  });

  it('claims none in a profile that takes no text', () => {
    expect(claimedTextType(PROFILES['organisation-logo'], as('text/plain', 'logo.txt'))).toBeUndefined();
  });
});

describe('the profiles', () => {
  it('name themselves by their key', () => {
    expect(Object.entries(PROFILES).filter(([key, profile]) => key !== profile.id)).toEqual([]);
  });

  it('take as text only types they accept', () => {
    expect(Object.values(PROFILES).flatMap((p) => ('text' in p ? p.text.filter((t) => !(p.types as readonly string[]).includes(t)) : []))).toEqual([]);
  });
});
