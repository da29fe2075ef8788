import { describe, expect, it } from 'vitest';
import { RepositoryUnavailableError } from '../../../lib/repositories/errors.js';
import { resolveFile } from '../../../lib/repositories/resolve.js';

describe('resolveFile without the local runtime', () => {
  it('answers a local connection as unavailable: only the local runtime reads repositories on its disk', async () => {
    const connection = { id: 'C', organisation_id: 'O', provider: 'local' as const, url: '/srv/repos/evidence', name: 'n', created_at: '2026-01-01T00:00:00Z' };
    await expect(resolveFile(connection, 'README.md', 'main')).rejects.toBeInstanceOf(RepositoryUnavailableError);
  });
});
