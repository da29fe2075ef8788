import { ImportRejected } from '../../lib/domain/imports/rows.js';
import { randomUUID } from 'node:crypto';

/** An entry of this service's JSON assertion format. */
export const formatEntry = (control_id: string, extra: Record<string, unknown> = {}) => ({
  control_id,
  responsibility: 'provider',
  implementation_status: 'implemented',
  implementation_statement: `Our hosting platform meets ${control_id} for all tenants.`,
  consumer_guidance: null,
  ...extra,
});

export const assertionDocument = (assertions: unknown[], extra: Record<string, unknown> = {}) => ({
  format: 'ism-assertions',
  format_version: 1,
  assertions,
  ...extra,
});

/** An implemented requirement of an OSCAL component definition. */
export const requirement = (controlId: string, props: Record<string, string> = { responsibility: 'provider' }, extra: Record<string, unknown> = {}) => ({
  uuid: randomUUID(),
  'control-id': controlId,
  description: `The managed service enforces ${controlId}.`,
  props: Object.entries(props).map(([name, value]) => ({ name, value })),
  ...extra,
});

/** A component definition with one component per list of requirements, shaped as OSCAL 1.1.3 has it. */
export const componentDefinition = (...components: unknown[][]) => ({
  'component-definition': {
    uuid: randomUUID(),
    metadata: { title: 'Example Cloud platform', 'last-modified': '2026-01-01T00:00:00Z', version: '1.0', 'oscal-version': '1.1.3' },
    components: components.map((requirements, i) => ({
      uuid: randomUUID(),
      type: 'service',
      title: `Service ${i + 1}`,
      description: 'A managed service.',
      'control-implementations': [{ uuid: randomUUID(), source: 'ISM_catalog.json', description: 'ISM controls', 'implemented-requirements': requirements }],
    })),
  },
});

export const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** The code of the ImportRejected that `run` throws; undefined when it throws nothing, any other error itself. */
export const rejectionCode = (run: () => unknown): unknown => {
  try {
    run();
    return undefined;
  } catch (e) {
    return e instanceof ImportRejected ? e.code : e;
  }
};
