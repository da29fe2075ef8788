import { SETTINGS } from '../lib/config.js';

/**
 * Imported before any module that could read settings: the workload sends far more requests per
 * minute than the production budgets allow, and a 429 would measure the limiter, not the operation.
 */
const GENEROUS = '1000000';
for (const name of Object.keys(SETTINGS)) {
  if (name.endsWith('_RATE_LIMIT_PER_MINUTE')) process.env[name] = GENEROUS;
}
process.env.ORGANISATION_LICENCE_LIMIT = GENEROUS;
// The document bench generates for a TOP SECRET project, which the demo organisation must be licensed for.
process.env.LICENSED_CLASSIFICATIONS = 'NC,OS,P,S,TS';
// One access-log line per request would bury the figures.
process.env.LOG_LEVEL = 'WARN';
// Node 20 is supported locally while Lambda runs Node 24, so the SDK's notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
