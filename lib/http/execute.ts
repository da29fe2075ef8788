import type { APIGatewayProxyResult } from 'aws-lambda';
import type { FileAnswer } from '../operations/kernel/operation.js';
import { perform, type Outcome } from '../operations/kernel/unit-of-work.js';
import { established, matched, type PipelineRequest } from './state.js';
import { fileHeaders } from './file-headers.js';
import { withStream } from './streaming.js';

/** Steps 9 and 10: hands what the request established to its operation's unit of work, and answers what it returns. */
export async function execute(request: PipelineRequest): Promise<APIGatewayProxyResult> {
  const { operation, caller, input } = established(request);
  const { state, event } = request;
  const outcome = await perform({
    operation,
    requestId: state.requestId,
    startedAt: state.startedAt,
    method: event.httpMethod,
    ip: state.ip,
    caller,
    input,
    page: state.page,
    ifMatch: state.ifMatch,
    items: state.items ?? new Map(),
    prefetchable: state.prefetchable ?? new Set(),
    collections: state.collections ?? new Map(),
    receipt: state.receipt,
    replay: state.replay,
  });
  return outcome.kind === 'file' ? fileResponse(outcome.file) : respond(request, outcome);
}

function fileResponse(file: FileAnswer): APIGatewayProxyResult {
  const headers = fileHeaders(file);
  if ('stream' in file) return withStream({ statusCode: 200, headers: { ...headers, 'Content-Length': String(file.length) }, body: '' }, file.stream);
  return { statusCode: 200, headers, body: file.bytes.toString('base64'), isBase64Encoded: true };
}

/** The JSON envelope: data, and meta unless the operation answers data alone. */
function respond(request: PipelineRequest, a: Extract<Outcome, { kind: 'data' }>): APIGatewayProxyResult {
  const op = matched(request);
  const { state } = request;
  const meta: Record<string, unknown> = { request_id: state.requestId };
  if (op.paginated) Object.assign(meta, { total: a.total ?? 0, current_page: state.page.number, page_size: state.page.size });
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  if (a.etag) headers.ETag = a.etag;
  if (a.location) headers.Location = a.location;
  if (op.idempotencyKey) headers['Idempotency-Replayed'] = String(a.replayed);
  return { statusCode: a.status, headers, body: JSON.stringify(op.dataOnly ? { data: a.data } : { data: a.data, meta }) };
}
