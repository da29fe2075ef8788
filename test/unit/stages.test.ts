import { describe, expect, it } from 'vitest';
import { isStageName, notAStageName, outputKeyOf, stackName } from '../../lib/stages.js';

describe('stage names', () => {
  it('are short, lower case and start with a letter', () => {
    expect(['dev', 'prod-2', 'a'.repeat(16)].map(isStageName)).toEqual([true, true, true]);
  });

  it('refuse upper case, a leading digit, more than 16 characters and non-strings', () => {
    expect(['Dev', '1dev', 'a'.repeat(17), 7].map(isStageName)).toEqual([false, false, false, false]);
  });

  it('explain a refusal with the rule', () => {
    expect(notAStageName('Dev')).toBe('stage "Dev" is not a stage name: it must match ^[a-z][a-z0-9-]{0,15}$');
  });
});

describe('stack names and outputs', () => {
  it("name a stage's stack by its part", () => {
    expect(stackName('dev', 'Data')).toBe('AssessmentOps-dev-Data');
  });

  it("name a setting's output in Pascal case", () => {
    expect(outputKeyOf('TOKEN_HASH_SECRET_ARN')).toBe('TokenHashSecretArn');
  });
});
