import { describe, expect, it } from 'vitest';
import { API_PREFIX, apiUrl } from '../../../lib/domain/api-paths.js';

describe('apiUrl', () => {
  it('fills each placeholder under the API prefix', () => {
    expect(apiUrl('/projects/{project}/tasks/{task}', { project: 'P1', task: 'T1' })).toBe(`${API_PREFIX}/projects/P1/tasks/T1`);
  });

  it('encodes a value so that it stays one path segment', () => {
    expect(apiUrl('/files/{name}', { name: 'a b/c' })).toBe('/api/v1/files/a%20b%2Fc');
  });

  it('throws for a placeholder left without a value, naming it', () => {
    expect(() => apiUrl('/projects/{project}', {})).toThrow('/projects/{project} needs a value for {project}');
  });
});
