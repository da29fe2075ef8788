import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** A function's handler behind API Gateway's Lambda proxy integration: the pipeline's, and the meta function's. */
export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Header lookup is case-insensitive (RFC 9110 5.1); API Gateway passes names as the client sent them. */
export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}

/**
 * Query parameters as single values; a repeated parameter is reported, not silently merged. Own
 * properties throughout, so that ?__proto__= is a parameter the schema can refuse.
 */
export function queryParams(event: APIGatewayProxyEvent): { values: Record<string, string>; repeated: string[] } {
  const given = Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
  const multi = new Map(Object.entries(event.multiValueQueryStringParameters ?? {}));
  return {
    values: Object.fromEntries(given),
    repeated: given.filter(([k]) => (multi.get(k)?.length ?? 1) > 1).map(([k]) => k),
  };
}

export function rawBody(event: APIGatewayProxyEvent): Buffer | undefined {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** The media type without parameters, lower-cased. */
export function mediaType(event: APIGatewayProxyEvent): string | undefined {
  return header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase() || undefined;
}

export function sourceIp(event: APIGatewayProxyEvent): string {
  return event.requestContext?.identity?.sourceIp ?? 'unknown';
}
