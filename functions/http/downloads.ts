import { createApiHandler } from '../../lib/http/pipeline.js';
import { runtimeGlobal, streamingApiHandler } from '../../lib/http/streaming.js';
import { operations } from '../../lib/operations/downloads/index.js';

const runtime = runtimeGlobal.awslambda;
if (typeof runtime?.streamifyResponse !== 'function') throw new Error('the downloads function needs the response-streaming runtime');

export const handler = streamingApiHandler(createApiHandler(operations), runtime);
