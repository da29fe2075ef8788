import dns, { type LookupAddress } from 'node:dns';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetSettings } from '../../lib/config.js';
import { RepositoryAddressRefusedError } from '../../lib/repositories/errors.js';
import { resolveFile } from '../../lib/repositories/resolve.js';
import { buildRepositoryConnection } from '../support/factories.js';
import { startGitHubStub, type GitHubStub } from '../support/github-stub.js';

/**
 * The github provider refuses addresses inside the network when its socket connects, whatever the
 * host was at `repository connect`. Names resolve through a stand-in for dns.lookup, which answers
 * what a test says for the names under `.example.test`.
 */
const SETTING = 'TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES';
const COMMIT = 'a'.repeat(40);

let stub: GitHubStub;
let port: string;
const answers = new Map<string, LookupAddress[]>();

beforeAll(async () => {
  stub = await startGitHubStub();
  stub.commits.set(COMMIT, { 'README.md': Buffer.from('hello\n') });
  stub.refs.set('main', COMMIT);
  port = new URL(stub.apiUrl).port;
  const lookup = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: dns.LookupAllOptions, callback: (...args: unknown[]) => void) => {
    const answer = answers.get(hostname);
    if (!answer) return lookup(hostname, options, callback);
    process.nextTick(() => callback(null, answer));
  }) as unknown as typeof dns.lookup);
});

beforeEach(() => {
  process.env[SETTING] = '127.0.0.1';
  resetSettings();
});

afterEach(() => {
  answers.clear();
  stub.requests.length = 0;
});

afterAll(async () => {
  vi.restoreAllMocks();
  await stub?.close();
  delete process.env[SETTING];
  resetSettings();
});

const connectionAt = (apiUrl: string) => buildRepositoryConnection({ url: 'https://github.com/acme/widgets', api_url: apiUrl });
const read = (apiUrl: string) => resolveFile(connectionAt(apiUrl), 'README.md', 'main');
const refusal = (apiUrl: string) =>
  read(apiUrl).then(
    () => undefined,
    (e: unknown) => e,
  );

describe('github repository provider: addresses inside the network', () => {
  it('refuses the stub on 127.0.0.1 once the test-only setting no longer allows it, sending nothing', async () => {
    process.env[SETTING] = '';
    resetSettings();
    expect(await refusal(stub.apiUrl)).toBeInstanceOf(RepositoryAddressRefusedError);
    expect(stub.requests).toEqual([]);
  });

  it.each(['2852039166', '0251.0376.0251.0376', '[::ffff:169.254.169.254]', '[fd00:ec2::254]', '127.0.0.2'])(
    'refuses the address literal %s without a lookup',
    async (host) => {
      const refused = await refusal(`http://${host}:${port}`);
      expect(refused).toBeInstanceOf(RepositoryAddressRefusedError);
    },
  );

  it('reads through a name whose answer is an allowed address', async () => {
    answers.set('allowed.example.test', [{ address: '127.0.0.1', family: 4 }]);
    expect((await read(`http://allowed.example.test:${port}`)).bytes.toString()).toBe('hello\n');
  });

  it('refuses a name that now resolves to the metadata address, naming it in the error', async () => {
    answers.set('rebound.example.test', [{ address: '169.254.169.254', family: 4 }]);
    const refused = await refusal(`http://rebound.example.test:${port}`);
    expect(refused).toBeInstanceOf(RepositoryAddressRefusedError);
    expect((refused as Error).message).toMatch(/169\.254\.169\.254, a cloud metadata address/);
  });

  it('refuses a name whose answer holds an address inside the network beside an allowed one', async () => {
    answers.set('mixed.example.test', [
      { address: '127.0.0.1', family: 4 },
      { address: '::ffff:10.0.0.1', family: 6 },
    ]);
    expect(await refusal(`http://mixed.example.test:${port}`)).toBeInstanceOf(RepositoryAddressRefusedError);
    expect(stub.requests).toEqual([]);
  });
});
