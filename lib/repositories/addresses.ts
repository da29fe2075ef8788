import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { settings } from '../config.js';
import { RepositoryAddressRefusedError } from './errors.js';

/**
 * Repository providers are reached across the internet only. A connection's host (an operator's
 * input, whose DNS answers someone else may control) must not lead the functions' requests, and the
 * token they carry, to the machine itself, its network or the cloud's metadata service. The rule is
 * applied by `repository connect` and again by every connection a provider's socket makes
 * (./transport.ts); Node's BlockList matches IPv4-mapped IPv6 addresses against the IPv4 ranges.
 * IPv6 forms that carry an IPv4 address to a translator (IPv4-compatible, NAT64, 6to4, Teredo) are
 * refused whole rather than unpacked.
 */
const RANGES: readonly (readonly [kind: string, subnets: readonly string[]])[] = [
  ['a cloud metadata', ['169.254.169.254/32', 'fd00:ec2::254/128']],
  ['an unspecified', ['0.0.0.0/8', '::/128']],
  ['a loopback', ['127.0.0.0/8', '::1/128']],
  ['a link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['a private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['a carrier-grade NAT', ['100.64.0.0/10']],
  ['a unique-local', ['fc00::/7']],
  ['an IPv4-translation', ['::/96', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32']],
];

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

let kinds: { kind: string; list: BlockList }[] | undefined;

/** Built at the first check, not at import: Node's block lists cost a cold start milliseconds that only a repository request needs. */
function blockLists(): { kind: string; list: BlockList }[] {
  kinds ??= RANGES.map(([kind, subnets]) => {
    const list = new BlockList();
    for (const subnet of subnets) {
      const [network = '', prefix] = subnet.split('/');
      list.addSubnet(network, Number(prefix), familyOf(network));
    }
    return { kind, list };
  });
  return kinds;
}

function allowedForTests(): BlockList {
  const list = new BlockList();
  for (const address of settings().TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES) list.addAddress(address, familyOf(address));
  return list;
}

function kindOf(address: string): string | undefined {
  const family = familyOf(address);
  if (allowedForTests().check(address, family)) return undefined;
  return blockLists().find(({ list }) => list.check(address, family))?.kind;
}

/** Why a provider may not be reached at this IP address, or undefined when it may. */
export function addressRefusal(address: string): string | undefined {
  const kind = kindOf(address);
  return kind && `${address} is ${kind} address`;
}

/** A name is refused when any address it resolves to is: which one a client picks is not up to this service. */
function resolvedRefusal(name: string, addresses: readonly LookupAddress[]): string | undefined {
  for (const { address } of addresses) {
    const kind = kindOf(address);
    if (kind) return `${name} resolves to ${address}, ${kind} address`;
  }
  return undefined;
}

/**
 * Why `repository connect` refuses a host (a URL's hostname, IPv6 in brackets), or undefined. A name
 * that does not resolve where the CLI runs is left to the check each connection makes.
 */
export async function hostRefusal(host: string): Promise<string | undefined> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return addressRefusal(bare);
  let addresses: LookupAddress[];
  try {
    addresses = await dns.promises.lookup(bare, { all: true });
  } catch {
    return undefined;
  }
  return resolvedRefusal(bare, addresses);
}

/** The `lookup` of the providers' sockets: dns.lookup's answer, refused as a whole when any address in it is. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refusal = resolvedRefusal(hostname, addresses);
    if (refusal) return callback(new RepositoryAddressRefusedError(`the repository host ${refusal}`), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    callback(null, first?.address ?? '', first?.family);
  });
};
