import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { DocumentModel } from '../../lib/domain/document-model.js';
import type { Renderer } from '../../lib/render/renderer.js';
import { collector, ISM_RELEASE_DIR } from './document-model.js';

/** NIST's OSCAL 1.1.3 schemas, beside the project, never copied into it. */
export const OSCAL_DIR = resolve(import.meta.dirname, '../../../shared/data/oscal-1.1.3');

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** A validator of one official schema, compiled with the options of the folder's SOURCE.md. */
export function oscalValidator(file: 'oscal_ssp_schema.json' | 'oscal_assessment-results_schema.json' | 'oscal_complete_schema.json'): ValidateFunction {
  ajv ??= addFormats(new Ajv({ strict: false, allErrors: true }));
  let validate = validators.get(file);
  if (!validate) validators.set(file, (validate = ajv.compile(JSON.parse(readFileSync(resolve(OSCAL_DIR, file), 'utf8')))));
  return validate;
}

let catalogueIds: Set<string> | undefined;
/** Every id of the ISM catalogue: controls, principles and their parts. */
export function ismCatalogueIds(): Set<string> {
  if (catalogueIds) return catalogueIds;
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
    } else if (node && typeof node === 'object') {
      const id = (node as { id?: unknown }).id;
      if (typeof id === 'string') ids.add(id);
      Object.values(node).forEach(walk);
    }
  };
  walk(JSON.parse(readFileSync(resolve(ISM_RELEASE_DIR, 'ISM_catalog.json'), 'utf8')).catalog.groups);
  return (catalogueIds = ids);
}

let statementIds: Map<string, string> | undefined;
/** The id of each control's statement part in the ISM catalogue, by the control's id. */
export function ismStatementIds(): Map<string, string> {
  if (statementIds) return statementIds;
  const found = new Map<string, string>();
  const walk = (node: { controls?: unknown[]; groups?: unknown[] }): void => {
    for (const c of (node.controls ?? []) as { id: string; parts?: { id: string; name: string }[] }[]) {
      const statement = c.parts?.find((p) => p.name === 'statement');
      if (statement) found.set(c.id, statement.id);
    }
    for (const g of node.groups ?? []) walk(g as { controls?: unknown[]; groups?: unknown[] });
  };
  walk(JSON.parse(readFileSync(resolve(ISM_RELEASE_DIR, 'ISM_catalog.json'), 'utf8')).catalog);
  return (statementIds = found);
}

/** Renders the model and parses what the renderer wrote. */
export async function renderJson(renderer: Renderer, model: DocumentModel): Promise<any> {
  const sink = collector();
  await renderer.render(model, sink.out);
  return JSON.parse(sink.bytes().toString('utf8'));
}

/** Every value under `key` anywhere in the document, with the path it sits at. */
export function valuesOf(document: unknown, key: string): { path: string; value: unknown }[] {
  const found: { path: string; value: unknown }[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${path}/${i}`);
    } else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) {
        if (k === key) found.push({ path: `${path}/${k}`, value: v });
        walk(v, `${path}/${k}`);
      }
  };
  walk(document, '');
  return found;
}

/** The uuids the document defines: every `uuid` member. */
export const definedUuids = (document: unknown): Set<string> => new Set(valuesOf(document, 'uuid').map((v) => v.value as string));

/**
 * Every uuid the document refers to, by the members OSCAL uses for references: `#uuid` hrefs,
 * party-uuids, component-uuid, subject-uuid, observation-uuid, risk-uuid and actor-uuid.
 */
export function uuidReferences(document: unknown): { path: string; value: string }[] {
  const single = ['component-uuid', 'subject-uuid', 'observation-uuid', 'risk-uuid', 'actor-uuid'].flatMap((k) => valuesOf(document, k));
  const lists = valuesOf(document, 'party-uuids').flatMap(({ path, value }) => (value as string[]).map((v, i) => ({ path: `${path}/${i}`, value: v })));
  const hrefs = valuesOf(document, 'href')
    .filter(({ value }) => typeof value === 'string' && value.startsWith('#'))
    .map(({ path, value }) => ({ path, value: (value as string).slice(1) }));
  return [...single, ...lists, ...hrefs].map(({ path, value }) => ({ path, value: value as string }));
}

/**
 * Why compliance-trestle (the OSCAL SDK of oscal-compass) refuses a value it reads as a URI, or
 * null when it accepts it. Trestle's models (trestle/oscal/common.py, generated from NIST's
 * schemas; release 3.x for OSCAL 1.1.3) type `ns`, `system-id` `identifier-type` and a facet's
 * `system` as pydantic.v1's AnyUrl, whose validate() (pydantic/v1/networks.py) matches
 * `scheme://` [user@] host [:port] [/path] [?query] [#fragment] and refuses a value without a
 * scheme followed by `//` ("invalid or missing URL scheme": so every `urn:`), without a host, with
 * a host that is not a domain name or IP address, with a port above 65535 or with anything left
 * over. This is that rule; trestle itself (Python) does not run here.
 */
export function trestleUrlProblem(value: string): string | null {
  const url = value.trim();
  const m =
    /^(?:([a-z][a-z0-9+\-.]+):\/\/)?(?:[^\s:/]*(?::[^\s/]*)?@)?(?:((?:\d{1,3}\.){3}\d{1,3})(?=$|[/:#?])|(\[[A-F0-9]*:[A-F0-9:]+\])(?=$|[/:#?])|([^\s/:?#]+))?(?::(\d+))?(?:\/[^\s?#]*)?(?:\?[^\s#]*)?(?:#[^\s#]*)?/i.exec(
      url,
    )!;
  const [, scheme, ipv4, ipv6, domain, port] = m;
  if (!scheme) return 'invalid or missing URL scheme';
  if (port !== undefined && Number(port) > 65_535) return 'URL port invalid, port cannot exceed 65535';
  if (m[0].length !== url.length) return `URL invalid, extra characters found after valid URL: ${JSON.stringify(url.slice(m[0].length))}`;
  if (!ipv4 && !ipv6 && !domain) return 'URL host invalid';
  const chunk = '[_0-9a-z](?:[-_0-9a-z]{0,61}[_0-9a-z])?';
  if (domain && !new RegExp(`^(?:${chunk}\\.)*?${chunk}(?:\\.[a-z]{2,63})?\\.?$`, 'i').test(domain)) return 'URL host invalid';
  return null;
}
