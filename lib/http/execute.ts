import type { APIGatewayProxyResult } from 'aws-lambda';
import type { FileAnswer, OperationContext, OperationResult } from '../operations/kernel/operation.js';
import { auditWrite } from '../store/audit.js';
import { keys, type Key } from '../store/keys.js';
import { collectionString, getOne, keyString, type Collection } from '../store/read.js';
import { matchReceipt, receiptWrite, ReceiptRaceError, type StoredResponse } from '../store/receipts.js';
import { commit } from '../store/transact.js';
import { RetryableConflict } from '../errors.js';
import { header } from './event.js';
import { receiptConflict } from './middlewares/receipt.js';
import { matched, type PipelineRequest } from './state.js';
import { fileHeaders } from './file-headers.js';
import { withStream } from './streaming.js';
import { routeOf } from '../operations/kernel/router.js';

/** Steps 9 and 10: replay or run the handler, commit its writes with audit and receipt, and answer. */
export async function execute(request: PipelineRequest): Promise<APIGatewayProxyResult> {
  if (request.state.replay) return replay(request, request.state.replay);
  try {
    return await runOnce(request);
  } catch (error) {
    if (!(error instanceof RetryableConflict)) throw error;
  }
  try {
    return await runOnce(request);
  } catch (error) {
    throw error instanceof RetryableConflict ? error.final : error;
  }
}

function contextOf(request: PipelineRequest): OperationContext {
  const op = matched(request);
  const { state, event } = request;
  return {
    requestId: state.requestId,
    now: state.startedAt,
    caller: state.caller!,
    prefetched: (k: Key) => {
      const wanted = keyString(k);
      // An undeclared key would read as a missing item, a silent 404: it is a programming error.
      if (!state.prefetchable?.has(wanted)) throw new Error(`${op.id} reads ${wanted} without declaring it in prefetch`);
      return state.items?.get(wanted);
    },
    prefetchedCollection: (c: Collection) => {
      const items = state.collections?.get(collectionString(c));
      if (!items) throw new Error(`${op.id} reads ${collectionString(c)} without declaring it in prefetchCollections`);
      return items;
    },
    ifMatch: header(event, 'if-match'),
    page: state.page,
  };
}

async function runOnce(request: PipelineRequest): Promise<APIGatewayProxyResult> {
  const op = matched(request);
  const { state, event } = request;
  const caller = state.caller!;
  const ctx = contextOf(request);
  const input = state.input as { params: unknown; query: unknown; body: unknown };
  const result: OperationResult<unknown> = await op.handle(ctx, input as never);
  const status = result.status ?? op.success;
  if (result.file) return fileResponse(result.file);
  // The declared schema is the contract: it fixes the member order and drops anything internal.
  result.data = op.response.parse(result.data);

  if (op.mode === 'mutation') {
    const nowSeconds = Math.floor(state.startedAt.getTime() / 1000);
    const stored: StoredResponse = { status, data: result.data, etag: result.etag, location: result.location };
    const writes = [
      ...(result.writes ?? []),
      auditWrite(
        {
          kind: op.auditKind ?? auditKindOf(op.id),
          request_id: state.requestId,
          operation_id: op.id,
          method: event.httpMethod,
          route: routeOf(op),
          status,
          actor_id: caller.userId,
          token_id: caller.tokenId,
          credential_type: caller.type,
          ...(caller.organisationId ? { organisation_id: caller.organisationId } : {}),
          target: result.auditTarget ?? (input.params as Record<string, string>),
          ...(result.auditDetails ? { details: result.auditDetails } : {}),
          source_ip: state.ip,
        },
        state.startedAt,
      ),
    ];
    // First, so that losing a race for the key is reported before any other condition it also fails.
    if (state.receipt) writes.unshift(receiptWrite(state.receipt.scope, state.receipt.keyDigest, stored, nowSeconds));
    try {
      await commit(writes);
    } catch (error) {
      if (!(error instanceof ReceiptRaceError) || !state.receipt) throw error;
      // Another request with the same key won the race: answer as its replay, or as a conflict.
      const winner = await getOne(keys.receipt(caller.userId, state.receipt.keyDigest));
      const match = matchReceipt(winner, state.receipt.scope, nowSeconds);
      if (match.kind !== 'replay') throw receiptConflict();
      return replay(request, match.response);
    }
  }
  await result.afterCommit?.();
  return respond(request, { status, data: result.data, etag: result.etag, location: result.location, total: result.total, replayed: false });
}

function fileResponse(file: FileAnswer): APIGatewayProxyResult {
  const headers = fileHeaders(file);
  if ('stream' in file) return withStream({ statusCode: 200, headers: { ...headers, 'Content-Length': String(file.length) }, body: '' }, file.stream);
  return { statusCode: 200, headers, body: file.bytes.toString('base64'), isBase64Encoded: true };
}

/** A stored answer, after the operation's recheck of what the original write needed, in the caller's current view. */
function replay(request: PipelineRequest, stored: StoredResponse): APIGatewayProxyResult {
  const op = matched(request);
  op.recheck?.(contextOf(request), request.state.input as never);
  const view = op.redact ? op.redact({ data: stored.data as never, etag: stored.etag }, request.state.caller!) : stored;
  // Stored maps come back from DynamoDB in no particular member order; the schema restores it.
  const data = op.response.parse(view.data);
  return respond(request, { status: stored.status, data, etag: view.etag, location: stored.location, replayed: true });
}

interface Answer {
  status: number;
  data: unknown;
  etag?: string;
  location?: string;
  total?: number;
  replayed: boolean;
}

function respond(request: PipelineRequest, a: Answer): APIGatewayProxyResult {
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

/** createOrganisation -> CREATE_ORGANISATION */
export const auditKindOf = (operationId: string) => operationId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
