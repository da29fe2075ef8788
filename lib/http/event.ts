import type { APIGatewayProxyEvent } from 'aws-lambda';

/** Header lookup is case-insensitive (RFC 9110 5.1); API Gateway passes names as the client sent them. */
export function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === wanted && v !== undefined) return v;
  return undefined;
}

/** Query parameters as single values; a repeated parameter is reported, not silently merged. */
export function queryParams(event: APIGatewayProxyEvent): { values: Record<string, string>; repeated: string[] } {
  const values: Record<string, string> = {};
  const repeated: string[] = [];
  const multi = event.multiValueQueryStringParameters ?? {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) {
    if (v === undefined) continue;
    values[k] = v;
    if ((multi[k]?.length ?? 1) > 1) repeated.push(k);
  }
  return { values, repeated };
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
