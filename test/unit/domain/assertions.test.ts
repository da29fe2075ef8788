import { isValid } from 'ulid';
import { newUlid } from '../../../lib/domain/ids.js';
import { describe, expect, it } from 'vitest';
import { assertionId, releaseAssertionIds } from '../../../lib/domain/assertions.js';

const release = newUlid();

describe('assertionId', () => {
  it('is a ULID', () => {
    expect(isValid(assertionId(release, 'ism-1691'))).toBe(true);
  });

  it('is the same for the same release and control', () => {
    expect(assertionId(release, 'ism-1691')).toBe(assertionId(release, 'ism-1691'));
  });

  it('differs between controls of a release', () => {
    expect(assertionId(release, 'ism-1691')).not.toBe(assertionId(release, 'ism-1692'));
  });

  it('differs between releases for one control', () => {
    expect(assertionId(release, 'ism-1691')).not.toBe(assertionId(newUlid(), 'ism-1691'));
  });

  it('begins with its release\u2019s part, so that a release\u2019s assertions are one key range', () => {
    expect(assertionId(release, 'ism-10001').startsWith(releaseAssertionIds(release))).toBe(true);
  });

  it('sorts a release\u2019s assertions by control number', () => {
    expect(assertionId(release, 'ism-0999') < assertionId(release, 'ism-10000')).toBe(true);
  });

  it('keeps the release\u2019s timestamp', () => {
    expect(assertionId(release, 'ism-1691').slice(0, 10)).toBe(release.slice(0, 10));
  });
});
