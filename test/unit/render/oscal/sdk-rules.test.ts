import { describe, expect, it } from 'vitest';
import type { Renderer } from '../../../../lib/render/renderer.js';
import { oscalAssessmentResultsRenderer } from '../../../../lib/render/oscal/assessment-results.js';
import { oscalPoamRenderer } from '../../../../lib/render/oscal/poam.js';
import { oscalSspRenderer } from '../../../../lib/render/oscal/ssp.js';
import { documentModel } from '../../../support/document-model.js';
import { renderJson, trestleUrlProblem, valuesOf } from '../../../support/oscal.js';

const model = documentModel({ classification: 'S' });
const RENDERERS: [string, Renderer][] = [
  ['oscal-ssp', oscalSspRenderer],
  ['oscal-assessment-results', oscalAssessmentResultsRenderer],
  ['oscal-poam', oscalPoamRenderer],
];
const documents = await Promise.all(RENDERERS.map(async ([key, renderer]) => [key, await renderJson(renderer, model)] as const));
const resources = (document: unknown) => new Set(valuesOf(document, 'resources').flatMap(({ value }) => (value as { uuid: string }[]).map((r) => r.uuid)));

describe('the rule compliance-trestle reads URIs by', () => {
  it('refuses what trestle refuses: a urn, a relative path, no host, a bad port', () => {
    expect([
      trestleUrlProblem('urn:assessment-operations-api:oscal'),
      trestleUrlProblem('projects/01J/controls'),
      trestleUrlProblem('https://'),
      trestleUrlProblem('https://assess.example.gov.au:70000/x'),
      trestleUrlProblem('https://assess example.gov.au/'),
    ]).toEqual([
      'invalid or missing URL scheme',
      'invalid or missing URL scheme',
      'URL host invalid',
      'URL port invalid, port cannot exceed 65535',
      'URL invalid, extra characters found after valid URL: " example.gov.au/"',
    ]);
  });

  it("accepts NIST's, FedRAMP's and trestle's own namespaces and identifier types", () => {
    const values = [
      'http://csrc.nist.gov/ns/oscal',
      'https://fedramp.gov/ns/oscal',
      'http://fedramp.gov/ns/oscal',
      'http://ietf.org/rfc/rfc4122',
      'https://oscal-compass.github.io/compliance-trestle/schemas/oscal',
      'https://doi.org/10.6028/NIST.SP.800-60v2r1',
    ];
    expect(values.map(trestleUrlProblem)).toEqual(values.map(() => null));
  });
});

describe.each(documents)('%s for the OSCAL SDKs', (_key, document) => {
  it('names every namespace, system identifier type and facet system by an https URL trestle reads', () => {
    const uris = [...valuesOf(document, 'ns'), ...valuesOf(document, 'identifier-type'), ...valuesOf(document, 'system')];
    expect(uris.length).toBeGreaterThan(0);
    expect(uris.filter(({ value }) => !String(value).startsWith('https://') || trestleUrlProblem(String(value)))).toEqual([]);
  });

  it('uses one namespace, under the installation', () => {
    expect(new Set(valuesOf(document, 'ns').map((v) => v.value))).toEqual(new Set(['https://assess.example.gov.au/ns/oscal']));
  });

  it('links by https URLs trestle reads, or to a resource of its back matter', () => {
    const local = resources(document);
    const hrefs = valuesOf(document, 'href').map(({ path, value }) => ({ path, value: String(value) }));
    expect(hrefs.length).toBeGreaterThan(0);
    const wrong = hrefs.filter(({ value }) =>
      value.startsWith('#') ? !local.has(value.slice(1)) : !value.startsWith('https://') || trestleUrlProblem(value) !== null,
    );
    expect(wrong).toEqual([]);
  });
});
