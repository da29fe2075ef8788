import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { stripControlCopies } from '../../lib/migrations/index.js';
import { putAll } from '../../lib/store/batch.js';
import { controlItem } from '../../lib/store/controls.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { buildControl } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

const reference = { provider_id: 'P1', release_id: 'R1', assertion_id: 'A1', restricted: false };

/** A control as a release before issue 25 stored it: the catalogue text and the provider's words copied onto it. */
async function controlWithCopies() {
  const control = buildControl({ project_id: newUlid(), provider_guidance: [reference], version: 3 });
  const item = {
    ...controlItem(control),
    statement: 'The catalogue text.',
    classifications: ['P'],
    provider_guidance: [{ ...reference, responsibility: 'provider', implementation_status: 'implemented', guidance: 'Words.', guidance_truncated: false }],
  };
  await putAll([item]);
  return keys.control(control.project_id, control.id);
}

describe('migration control-copied-text', () => {
  it('strips the copied catalogue text and keeps the guidance as references', async () => {
    const key = await controlWithCopies();
    await stripControlCopies();
    const stored = await getOne(key);
    expect(stored).not.toHaveProperty('statement');
    expect(stored).not.toHaveProperty('classifications');
    expect(stored?.provider_guidance).toEqual([reference]);
  });

  it('leaves the version, so that the control keeps its ETag', async () => {
    const key = await controlWithCopies();
    await stripControlCopies();
    expect((await getOne(key))?.version).toBe(3);
  });

  it('leaves a control without copies as it is', async () => {
    const control = buildControl({ project_id: newUlid(), provider_guidance: [reference] });
    await putAll([controlItem(control)]);
    const before = await getOne(keys.control(control.project_id, control.id));
    await stripControlCopies();
    expect(await getOne(keys.control(control.project_id, control.id))).toEqual(before);
  });
});
