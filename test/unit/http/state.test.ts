import { describe, expect, it } from 'vitest';
import { established, matched } from '../../../lib/http/state.js';
import type { AnyOperation, Caller } from '../../../lib/operations/kernel/operation.js';
import { getOrganisation } from '../../../lib/operations/organisations/organisations.js';
import { pipelineRequest } from '../../support/pipeline.js';

const operation = getOrganisation as unknown as AnyOperation;
const caller = { tokenId: 'T', userId: 'U', type: 'organisation', permissions: new Set(), readOnly: false, superUser: false } as unknown as Caller;
const input = { params: { organisation: 'O' }, query: {}, body: undefined };

describe('matched', () => {
  it('answers the operation the router matched', () => {
    expect(matched(pipelineRequest({ operation }))).toBe(operation);
  });

  it('refuses to answer before routing', () => {
    expect(() => matched(pipelineRequest())).toThrow('pipeline step ran before routing');
  });
});

describe('established', () => {
  it('answers the operation, caller and input once authorisation and validation ran', () => {
    expect(established(pipelineRequest({ operation, state: { caller, input } }))).toEqual({ operation, caller, input });
  });

  it('refuses to answer before validation', () => {
    expect(() => established(pipelineRequest({ operation, state: { caller } }))).toThrow('pipeline step ran before authorisation and validation');
  });
});
