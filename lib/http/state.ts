import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Request } from '@middy/core';
import type { TokenClaims } from '../auth/tokens.js';
import type { AnyOperation, Caller, Page } from '../operations/kernel/operation.js';
import type { Item } from '../store/read.js';
import type { ReceiptScope, StoredResponse } from '../store/receipts.js';

export interface BudgetCount {
  budget: string;
  limit: number;
  count: number;
  resetSeconds: number;
}

/** What each pipeline step leaves for the next ones. */
export interface PipelineState {
  requestId: string;
  startedAt: Date;
  ip: string;
  operation?: AnyOperation;
  /** The request log's name for an answer no registered operation gives: the OpenAPI document. */
  unregisteredOperationId?: string;
  rawParams?: Record<string, string>;
  token?: string;
  claims?: TokenClaims;
  items?: Map<string, Item>;
  /** The keys the operation declared in `prefetch`: the only ones a handler may ask for. */
  prefetchable?: Set<string>;
  /** The collections the operation declared in `prefetchCollections`, by collectionString, with their items. */
  collections?: Map<string, Item[]>;
  budgets?: BudgetCount[];
  /** When the caller budgets were counted before authentication; taken back if it fails. */
  callerCountedAt?: Date;
  caller?: Caller;
  input?: Established['input'];
  page: Page;
  /** The If-Match header as the client sent it, read by the preconditions step. */
  ifMatch?: string;
  receipt?: { scope: ReceiptScope; keyDigest: string };
  replay?: StoredResponse;
  responseHeaders: Record<string, string>;
}

export type PipelineRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> & { state: PipelineState };

export interface Middleware {
  before?: (request: PipelineRequest) => Promise<void> | void;
  after?: (request: PipelineRequest) => Promise<void> | void;
  onError?: (request: PipelineRequest) => Promise<void> | void;
}

/** What the steps before the handler established: its operation, the authorised caller and the validated input. */
export interface Established {
  operation: AnyOperation;
  caller: Caller;
  input: { params: unknown; query: unknown; body: unknown };
}

/** For the receipt step and the handler, which run after authorisation and validation. */
export function established(request: PipelineRequest): Established {
  const { caller, input } = request.state;
  if (!caller || !input) throw new Error('pipeline step ran before authorisation and validation');
  return { operation: matched(request), caller, input };
}

/** The operation matched by the router step; every later step may rely on it. */
export function matched(request: PipelineRequest): AnyOperation {
  const op = request.state.operation;
  if (!op) throw new Error('pipeline step ran before routing');
  return op;
}
