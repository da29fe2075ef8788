import { runMigrations } from '../../migrations/index.js';
import type { Command } from '../options.js';

export const commands: Record<string, Command> = {
  migrate: async (_values, now) => ({ steps: await runMigrations(now) }),
};

export const refusals = [];
