import { describe, expect, it } from 'vitest';
import { connectionOption, displayUrl, refProblem, repositoryPathProblem } from '../../../lib/domain/repositories.js';
import { buildRepositoryConnection } from '../../support/factories.js';

describe('repositoryPathProblem', () => {
  it.each(['README.md', 'docs/security/policy.md', 'a/b.c/.github/workflows/ci.yml', 'dir with spaces/ünïcode.txt', '.gitignore', 'x'.repeat(1024)])(
    'accepts %s',
    (path) => {
      expect(repositoryPathProblem(path)).toBeUndefined();
    },
  );

  it.each([
    ['', 'empty'],
    ['x'.repeat(1025), 'at most 1024'],
    ['/etc/passwd', 'relative'],
    ['C:/Windows/win.ini', 'relative'],
    ['docs\\policy.md', '\\'],
    ['docs/../../secret', '..'],
    ['..', '..'],
    ['./docs/policy.md', '. or ..'],
    ['docs//policy.md', 'empty segments'],
    ['docs/', 'empty segments'],
    ['docs/\u0000policy.md', 'control'],
    ['docs/policy\u001F.md', 'control'],
    ['docs/policy\u007F.md', 'control'],
    ['.git/config', '.git'],
    ['sub/.GIT/config', '.git'],
  ])('refuses %j (%s)', (path, problem) => {
    expect(repositoryPathProblem(path)).toContain(problem);
  });
});

describe('refProblem', () => {
  it.each([
    'main',
    'release/2026.1',
    'refs/heads/main',
    'refs/tags/v1.2.3',
    'HEAD',
    'feature/x-y_z',
    'a'.repeat(255),
    '0123456789abcdef0123456789abcdef01234567',
    'v1.0@x',
  ])('accepts %s', (ref) => {
    expect(refProblem(ref)).toBeUndefined();
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(256), 'at most 255'],
    ['feature branch', 'spaces'],
    ['tab\there', 'control'],
    ['del\u007F', 'control'],
    ['main~1', '~'],
    ['main^', '~'],
    ['a:b', '~'],
    ['what?', '~'],
    ['wild*', '~'],
    ['br[acket', '~'],
    ['back\\slash', '~'],
    ['/main', '//'],
    ['main/', '//'],
    ['feature//x', '//'],
    ['a..b', '..'],
    ['main@{1}', '@{'],
    ['@', '@ alone'],
    ['release.', 'end with .'],
    ['-delete', 'begin with -'],
    ['.hidden', 'begin with .'],
    ['feature/.hidden', 'begin with .'],
    ['main.lock', '.lock'],
    ['refs/heads/x.lock/y', '.lock'],
  ])('refuses %j (%s)', (ref, problem) => {
    expect(refProblem(ref)).toContain(problem);
  });
});

describe('displayUrl', () => {
  it('keeps a URL without credentials as it is', () => {
    expect(displayUrl('https://github.com/acme/policies')).toBe('https://github.com/acme/policies');
    expect(displayUrl('/srv/git/policies')).toBe('/srv/git/policies');
  });

  it('drops user information, query and fragment', () => {
    expect(displayUrl('https://x-access-token:ghp_secret@github.com/acme/policies.git?token=t#frag')).toBe('https://github.com/acme/policies.git');
  });
});

describe('connectionOption', () => {
  it('shows id, provider, name and a URL without credentials, and nothing else stored', () => {
    const stored = { ...buildRepositoryConnection({ url: 'https://token@github.com/acme/p' }), token_secret: 'ghp_secret' };
    expect(connectionOption(stored)).toEqual({ connection_id: stored.id, provider: 'github', name: stored.name, url: 'https://github.com/acme/p' });
  });
});
