import { afterEach, describe, expect, it } from 'vitest';
import { readSettings, resetSettings } from '../../../lib/config.js';
import { addressRefusal, hostRefusal } from '../../../lib/repositories/addresses.js';

const SETTING = 'TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES';

afterEach(() => {
  delete process.env[SETTING];
  resetSettings();
});

describe('repository addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['64:ff9b::a9fe:a9fe', 'IPv4-translation'],
    ['2002:7f00:1::', 'IPv4-translation'],
  ])('refuses %s as %s', (address, kind) => {
    expect(addressRefusal(address)).toContain(kind);
  });

  it.each(['140.82.112.6', '20.205.243.168', '100.128.0.1', '172.32.0.1', '192.169.0.1', '2606:50c0:8000::154', '::ffff:140.82.112.6'])(
    'allows the public address %s',
    (address) => {
      expect(addressRefusal(address)).toBeUndefined();
    },
  );

  it('allows exactly the addresses of the test-only setting, and no neighbour of them', () => {
    process.env[SETTING] = '127.0.0.1, ::1';
    resetSettings();
    expect(addressRefusal('127.0.0.1')).toBeUndefined();
    expect(addressRefusal('0:0:0:0:0:0:0:1')).toBeUndefined();
    expect(addressRefusal('127.0.0.2')).toContain('loopback');
    expect(addressRefusal('169.254.169.254')).toContain('cloud metadata');
  });

  it('refuses a test-only setting that holds anything but IP addresses', () => {
    expect(() => readSettings({ [SETTING]: 'localhost' })).toThrow(new RegExp(SETTING));
    expect(() => readSettings({ [SETTING]: '127.0.0.0/8' })).toThrow(new RegExp(SETTING));
  });
});

describe('repository hosts at connect time', () => {
  it.each(['127.0.0.1', '[::1]', '[::ffff:7f00:1]', '169.254.169.254', '[fd00:ec2::254]'])('refuses the address %s', async (host) => {
    expect(await hostRefusal(host)).toBeDefined();
  });

  it('refuses a name that resolves to a loopback address', async () => {
    expect(await hostRefusal('localhost')).toContain('loopback');
  });

  it('leaves a name that does not resolve here to the check each request makes', async () => {
    expect(await hostRefusal('no-such-host.invalid')).toBeUndefined();
  });
});
