import { describe, expect, it } from 'vitest';
import { githubRepositoryOf, isRepositoryPath, isRepositoryRef } from '../../../lib/domain/repositories.js';

describe('githubRepositoryOf', () => {
  it('reads a github.com repository and answers its API base', () => {
    expect(githubRepositoryOf('https://github.com/acme/widgets')).toEqual({
      url: 'https://github.com/acme/widgets',
      owner: 'acme',
      repo: 'widgets',
      api_url: 'https://api.github.com',
    });
  });

  it('drops a .git suffix and a trailing slash and lowers the host', () => {
    expect(githubRepositoryOf('https://GitHub.com/acme/widgets.git/')?.url).toBe('https://github.com/acme/widgets');
  });

  it('answers an Enterprise Server API under /api/v3 of its host, port included', () => {
    expect(githubRepositoryOf('https://git.example.gov.au:8443/platform/ism')?.api_url).toBe('https://git.example.gov.au:8443/api/v3');
  });

  it('answers a data-residency Enterprise Cloud API at api.<host>', () => {
    expect(githubRepositoryOf('https://acme.ghe.com/platform/ism')?.api_url).toBe('https://api.acme.ghe.com');
  });

  it.each([
    ['plain http', 'http://github.com/acme/widgets'],
    ['credentials in the URL', 'https://user:secret@github.com/acme/widgets'],
    ['an owner without a repository', 'https://github.com/acme'],
    ['a deeper path', 'https://github.com/acme/widgets/tree/main'],
    ['a query', 'https://github.com/acme/widgets?tab=readme'],
    ['a dot-dot repository', 'https://github.com/acme/..'],
    ['an owner GitHub would refuse', 'https://github.com/-acme/widgets'],
    ['no URL at all', 'acme/widgets'],
  ])('refuses %s', (_label, url) => {
    expect(githubRepositoryOf(url)).toBeUndefined();
  });
});

describe('isRepositoryRef', () => {
  it.each(['main', 'release/2025.12', 'v1.2.0', '0a1b2c3', 'a'.repeat(40), 'HEAD'])('accepts %s', (ref) => {
    expect(isRepositoryRef(ref)).toBe(true);
  });

  it.each([
    '',
    'main..dev',
    'HEAD~1',
    'main^',
    'a b',
    'x:y',
    '-main',
    '/main',
    'main/',
    'main.',
    'feature//x',
    'v1.lock',
    '.hidden',
    'a@{1}',
    '@',
    'a\u0000b',
    'a?b',
  ])('refuses %j', (ref) => {
    expect(isRepositoryRef(ref)).toBe(false);
  });
});

describe('isRepositoryPath', () => {
  it.each(['README.md', 'docs/ssp/boundary.md', 'config/.github/settings.yml'])('accepts %s', (path) => {
    expect(isRepositoryPath(path)).toBe(true);
  });

  it.each(['', '/etc/passwd', 'docs/', 'docs//x', '../secrets', 'docs/../../x', './README.md', 'a\nb', 'x'.repeat(1025)])('refuses %j', (path) => {
    expect(isRepositoryPath(path)).toBe(false);
  });
});
