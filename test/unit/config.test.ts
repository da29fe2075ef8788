import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSettings, resetSettings, settings } from '../../lib/config.js';

describe('settings', () => {
  it('default the seven rate-limit budgets to the seed values', () => {
    const s = readSettings({});
    expect([
      s.API_INGRESS_RATE_LIMIT_PER_MINUTE,
      s.API_READ_RATE_LIMIT_PER_MINUTE,
      s.API_ACTOR_READ_RATE_LIMIT_PER_MINUTE,
      s.API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE,
      s.API_MUTATION_RATE_LIMIT_PER_MINUTE,
      s.API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE,
      s.API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE,
    ]).toEqual([600, 120, 240, 1200, 30, 60, 300]);
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => readSettings({ API_READ_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/API_READ_RATE_LIMIT_PER_MINUTE/);
  });

  it('refuses a control workflow that is not valid JSON or not a valid workflow', () => {
    expect(() => readSettings({ CONTROL_WORKFLOW: '{' })).toThrow(/CONTROL_WORKFLOW/);
    expect(() => readSettings({ CONTROL_WORKFLOW: JSON.stringify({ initial: 'nowhere', states: [], transitions: [] }) })).toThrow(/CONTROL_WORKFLOW/);
  });

  describe("the process's settings", () => {
    afterEach(() => {
      vi.unstubAllEnvs();
      resetSettings();
    });

    it('parses each setting at its first read: an invalid one throws there, and the others still read', () => {
      vi.stubEnv('API_READ_RATE_LIMIT_PER_MINUTE', '0');
      vi.stubEnv('API_MUTATION_RATE_LIMIT_PER_MINUTE', '45');
      resetSettings();
      const s = settings();
      expect(s.API_MUTATION_RATE_LIMIT_PER_MINUTE).toBe(45);
      expect(() => s.API_READ_RATE_LIMIT_PER_MINUTE).toThrow(/API_READ_RATE_LIMIT_PER_MINUTE/);
    });

    it('keeps the environment of its first call until they are reset', () => {
      vi.stubEnv('API_MUTATION_RATE_LIMIT_PER_MINUTE', '45');
      resetSettings();
      const s = settings();
      vi.stubEnv('API_MUTATION_RATE_LIMIT_PER_MINUTE', '50');
      expect(s.API_MUTATION_RATE_LIMIT_PER_MINUTE).toBe(45);
      resetSettings();
      expect(settings().API_MUTATION_RATE_LIMIT_PER_MINUTE).toBe(50);
    });
  });
});
