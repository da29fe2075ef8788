import { Ajv2020 } from 'ajv/dist/2020.js';
import { newUlid } from '../../../../lib/domain/ids.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { controlWorkflow } from '../../../../lib/config.js';
import { MetadataFields } from '../../../../lib/domain/evidence.js';
import { Ulid } from '../../../../lib/domain/ids.js';
import { CreateOrganisation } from '../../../../lib/domain/organisations.js';
import { changesSomething } from '../../../../lib/domain/patch.js';
import { UpdateSetupProject } from '../../../../lib/domain/projects.js';
import { CreateSystem } from '../../../../lib/domain/systems.js';
import { filledLine, filledText } from '../../../../lib/domain/validation.js';
import { stateIds } from '../../../../lib/domain/workflow.js';
import { buildOpenApi } from '../../../../lib/operations/kernel/openapi.js';
import { OPERATIONS } from '../../../../lib/operations/registry.js';

/*
 * Where a shared definition's JSON Schema is the whole rule, the document and the server agree on
 * every probe; where it is only part of it (a time zone must also exist), the document never takes
 * what the server refuses for its shape.
 */

const ajv = new Ajv2020({ strict: false });
const documentAccepts = (schema: z.ZodType, value: unknown) => ajv.validate(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), value) as boolean;
const serverAccepts = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

const verdicts = (schema: z.ZodType, probes: unknown[]) =>
  probes.map((value) => ({ value, document: documentAccepts(schema, value), server: serverAccepts(schema, value) }));
/** The verdicts of `verdicts` when the document says what the server does. */
const asTheServerSays = (schema: z.ZodType, probes: unknown[]) =>
  probes.map((value) => ({ value, document: serverAccepts(schema, value), server: serverAccepts(schema, value) }));

describe('the document and the server agree', () => {
  it('on ULIDs: upper-case Crockford base 32, 26 characters, a time that fits 48 bits', () => {
    const id = newUlid();
    const probes = [
      id,
      id.toLowerCase(),
      `${id.slice(0, 25)}I`,
      `${id.slice(0, 25)}U`,
      id.slice(1),
      `${id}0`,
      `8${id.slice(1)}`,
      '7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
      ` ${id.slice(1)}`,
    ];
    expect(verdicts(Ulid, probes)).toEqual(asTheServerSays(Ulid, probes));
    expect(probes.filter((v) => serverAccepts(Ulid, v))).toEqual([id, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ']);
  });

  it('on short codes: 2 to 16 ASCII letters, digits or inner hyphens, either case, as sent', () => {
    const code = CreateSystem().shape.short_code;
    const probes = ['HR', 'hr-pay', 'A'.repeat(16), 'A'.repeat(17), 'A', '-HR', 'HR-', 'H R', ' HR', 'ıs', 'HR_PAY'];
    expect(verdicts(code, probes)).toEqual(asTheServerSays(code, probes));
    expect(probes.filter((v) => serverAccepts(code, v))).toEqual(['HR', 'hr-pay', 'A'.repeat(16)]);
  });

  it.each([
    ['filledLine', filledLine(10)],
    ['filledText', filledText(10)],
  ] as const)('on %s: not blank, at most its length as sent', (_name, schema) => {
    const probes = ['x', ' x ', '', ' ', '\u00a0\u3000', '\ufeff', 'x'.repeat(10), ` ${'x'.repeat(10)}`];
    expect(verdicts(schema, probes)).toEqual(asTheServerSays(schema, probes));
  });

  it('on merge patches: a property to change, other than one that only accompanies a change', () => {
    const patch = z.strictObject({ name: z.string(), reason: z.string() }).partial().apply(changesSomething, 'property', ['reason']);
    const probes = [{}, { reason: 'r' }, { name: 'n' }, { name: 'n', reason: 'r' }];
    expect(verdicts(patch, probes)).toEqual(asTheServerSays(patch, probes));
    expect(verdicts(UpdateSetupProject(), [{}, { project_edit_reason: 'r' }])).toEqual(
      asTheServerSays(UpdateSetupProject(), [{}, { project_edit_reason: 'r' }]),
    );
  });

  it('on a time zone, for its shape; a name of that shape must also be in the tz database', () => {
    const timezone = CreateOrganisation().shape.timezone;
    const probes = ['Australia/Sydney', 'australia/sydney', 'UTC', 'Etc/GMT+10', 'US/Eastern', '+10:00', '1/2', 'Australia/', ' UTC', 'Mars/Olympus_Mons'];
    const shapeRefused = probes.filter((v) => !documentAccepts(timezone, v));
    expect(shapeRefused.filter((v) => serverAccepts(timezone, v))).toEqual([]);
    expect(probes.filter((v) => documentAccepts(timezone, v) && !serverAccepts(timezone, v))).toEqual(['Mars/Olympus_Mons']);
  });
});

describe('the document of the registry', () => {
  const document = buildOpenApi(OPERATIONS) as { paths: Record<string, Record<string, { parameters: { name: string; schema: Record<string, unknown> }[] }>> };
  const parameter = (path: string, name: string) => document.paths[path]!.get!.parameters.find((p) => p.name === name)!.schema;

  it('lists the configured workflow states as the values of filter[workflow_state]', () => {
    expect(parameter('/projects/{project}/controls', 'filter[workflow_state]').enum).toEqual(stateIds(controlWorkflow()));
  });

  it('bounds page[number] by the largest integer the server counts exactly', () => {
    expect(parameter('/projects/{project}/controls', 'page[number]')).toMatchObject({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
  });
});

describe('the document and the server agree on an external reference', () => {
  it('takes a scheme only when it is http or https, whatever the case and leading space', () => {
    const reference = MetadataFields().external_reference.unwrap();
    const probes = [
      'DOC-42',
      'https://example.com/x',
      ' HTTP://example.com',
      'javascript:alert(1)',
      ' javascript:alert(1)',
      'mailto:a@b.c',
      'ftp://x',
      'see page 4: intro',
    ];
    expect(verdicts(reference, probes)).toEqual(asTheServerSays(reference, probes));
    expect(probes.filter((v) => serverAccepts(reference, v))).toEqual(['DOC-42', 'https://example.com/x', ' HTTP://example.com', 'see page 4: intro']);
  });
});
