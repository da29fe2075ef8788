import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs. Never log tokens, request bodies or query values. */
export const logger = new Logger({
  serviceName: 'assessment-operations-api',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO',
});
