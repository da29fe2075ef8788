import { describe, expect, it } from 'vitest';
import { RetrySoon } from '../../../lib/queues/retry-soon.js';

describe('RetrySoon', () => {
  it('is an Error that carries when to retry, under a name the workers recognise', () => {
    const error = new RetrySoon('lease held', 5);
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.seconds]).toEqual(['RetrySoon', 'lease held', 5]);
  });
});
