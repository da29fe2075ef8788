import { Logger } from '@aws-lambda-powertools/logger';
import { withSourceStack } from './source-stack.js';

/**
 * Structured JSON logs. Never log tokens, request bodies or query values. Built at import, as every
 * request writes its request line: deferring it would only move its cost into the first request.
 * An error among a log's attributes is written with its stack mapped to source positions
 * (lib/source-stack.ts).
 */
export const logger = new Logger({
  serviceName: 'assessment-operations-api',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO',
  jsonReplacerFn: (_key, value) => (value instanceof Error ? withSourceStack(value) : value),
});
