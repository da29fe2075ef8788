import { afterEach, describe, expect, it, vi } from 'vitest';
import { QUEUES, queueUrl, queueUrlVariable } from '../../../lib/queues/queues.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the job queues', () => {
  it('name each queue by its key', () => {
    expect(Object.entries(QUEUES).filter(([key, queue]) => key !== queue.name)).toEqual([]);
  });
});

describe('queueUrlVariable', () => {
  it('names the variable that carries a queue URL', () => {
    expect(queueUrlVariable('populate')).toBe('POPULATE_QUEUE_URL');
  });
});

describe('queueUrl', () => {
  it('answers the URL the stack or runtime set', () => {
    vi.stubEnv('SCAN_QUEUE_URL', 'http://localhost:9324/000000000000/scan');
    expect(queueUrl('scan')).toBe('http://localhost:9324/000000000000/scan');
  });

  it('fails, naming the variable, when it is not set', () => {
    vi.stubEnv('PURGE_QUEUE_URL', '');
    expect(() => queueUrl('purge')).toThrow('PURGE_QUEUE_URL is not set');
  });
});
