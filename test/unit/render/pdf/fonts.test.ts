import { describe, expect, it } from 'vitest';
import { FONT_FILES, fontBytes } from '../../../../lib/render/pdf/fonts.js';

/** The first four bytes of a TrueType font file: version 1.0 of the sfnt format. */
const TRUETYPE = Buffer.from([0x00, 0x01, 0x00, 0x00]);

describe('fontBytes', () => {
  it('answers a TrueType font for every face the layout selects, read from the package from source', () => {
    const fonts = fontBytes();
    expect(Object.entries(fonts).map(([name, bytes]) => [name, bytes.subarray(0, 4).equals(TRUETYPE)])).toEqual(
      Object.keys(FONT_FILES).map((name) => [name, true]),
    );
  });

  it('reads the fonts once per instance', () => {
    expect(fontBytes()).toBe(fontBytes());
  });
});
