import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { header, mediaType, queryParams, rawBody, sourceIp } from '../../../lib/http/event.js';

const event = (over: Partial<APIGatewayProxyEvent>) => ({ headers: {}, body: null, isBase64Encoded: false, ...over }) as APIGatewayProxyEvent;

describe('header', () => {
  it('finds a header whatever the case it was sent in', () => {
    expect(header(event({ headers: { 'IF-MATCH': '"v1"' } }), 'If-Match')).toBe('"v1"');
  });

  it('is undefined for a header not sent', () => {
    expect(header(event({}), 'If-Match')).toBeUndefined();
  });
});

describe('queryParams', () => {
  it('gives single values and names the repeated parameters', () => {
    const e = event({ queryStringParameters: { a: '1', b: '3' }, multiValueQueryStringParameters: { a: ['1'], b: ['2', '3'] } });
    expect(queryParams(e)).toEqual({ values: { a: '1', b: '3' }, repeated: ['b'] });
  });

  it('keeps __proto__ as a parameter of its own for the schema to refuse', () => {
    const values = queryParams(event({ queryStringParameters: JSON.parse('{"__proto__":"x"}') })).values;
    expect(Object.keys(values)).toEqual(['__proto__']);
  });
});

describe('rawBody', () => {
  it('decodes a base64 body and reads a plain one as UTF-8', () => {
    expect(rawBody(event({ body: Buffer.from('héllo').toString('base64'), isBase64Encoded: true }))?.toString()).toBe('héllo');
    expect(rawBody(event({ body: 'héllo' }))?.toString()).toBe('héllo');
  });

  it('is undefined for no body and an empty one', () => {
    expect([rawBody(event({})), rawBody(event({ body: '' }))]).toEqual([undefined, undefined]);
  });
});

describe('mediaType', () => {
  it('drops the parameters and the case', () => {
    expect(mediaType(event({ headers: { 'Content-Type': 'Application/JSON; charset=utf-8' } }))).toBe('application/json');
  });
});

describe('sourceIp', () => {
  it('is the caller address API Gateway saw, or unknown', () => {
    expect(sourceIp(event({ requestContext: { identity: { sourceIp: '203.0.113.9' } } } as never))).toBe('203.0.113.9');
    expect(sourceIp(event({}))).toBe('unknown');
  });
});
