import { describe, expect, it } from 'vitest';
import { labelOf, STATUS_LABELS, topicOf } from '../../../lib/render/labels.js';

describe('labelOf', () => {
  it('reads a known code as its label', () => {
    expect(labelOf(STATUS_LABELS, 'ec')).toBe('Effective through external provider');
  });

  it('shows a code the table does not know as itself, and no code as nothing', () => {
    expect([labelOf(STATUS_LABELS, 'custom_status'), labelOf(STATUS_LABELS, null)]).toEqual(['custom_status', '']);
  });
});

describe('topicOf', () => {
  it('names a control by its topic, else its section, else its title', () => {
    expect(topicOf({ path: ['G', 'S', 'T'], title: 'ISM-1' })).toBe('T');
    expect(topicOf({ path: ['G', 'S'], title: 'ISM-1' })).toBe('S');
    expect(topicOf({ path: [], title: 'ISM-1' })).toBe('ISM-1');
  });
});
