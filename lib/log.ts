import { Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes } from '@aws-lambda-powertools/logger/types';
import { withSourceStack } from './source-stack.js';

let powertools: Logger | undefined;

/**
 * Powertools' logger, constructed at the first line written rather than at import: constructing it
 * (its console over process.stdout and stderr among the rest) cost every cold start about 3 ms CPU,
 * and most requests write nothing. An error among a log's attributes is written with its stack
 * mapped to source positions (lib/source-stack.ts).
 */
function instance(): Logger {
  powertools ??= new Logger({
    serviceName: 'assessment-operations-api',
    logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO',
    jsonReplacerFn: (_key, value) => (value instanceof Error ? withSourceStack(value) : value),
  });
  return powertools;
}

type Write = (message: string, ...attributes: LogAttributes[]) => void;

/** Structured JSON logs. Never log tokens, request bodies or query values. */
export const logger: { info: Write; warn: Write; error: Write } = {
  info: (message, ...attributes) => instance().info(message, ...attributes),
  warn: (message, ...attributes) => instance().warn(message, ...attributes),
  error: (message, ...attributes) => instance().error(message, ...attributes),
};
