import { logger } from '../../log.js';
import { writeAudit, writeSampledRateLimitAudit, type AuditRecord } from '../../store/audit.js';
import { ApiError, storageUnavailable } from '../../errors.js';
import { repositoryProblem } from '../../repositories/errors.js';
import { internalError, problemResponse } from '../problem.js';
import type { Middleware, PipelineRequest } from '../state.js';
import { isStorageUnavailable } from '../storage-errors.js';
import { routeOf } from '../../operations/kernel/router.js';

/**
 * Step 11: every thrown error becomes application/problem+json; anything unexpected is logged
 * with the request id and answered without detail. Failed requests leave a safe audit event.
 */
export function errorMapper(): Middleware {
  return {
    onError: async (request) => {
      const error = request.error;
      let apiError: ApiError;
      const repositoryFailure = repositoryProblem(error);
      if (error instanceof ApiError) apiError = error;
      else if (repositoryFailure) {
        // Checked before storage: a provider's network failure carries the same socket codes.
        logger.warn('repository provider failure', { request_id: request.state?.requestId, error: error as Error });
        apiError = repositoryFailure;
      } else if (isStorageUnavailable(error)) {
        logger.warn('storage unavailable', { request_id: request.state?.requestId, error: error as Error });
        apiError = storageUnavailable();
      } else {
        logger.error('unhandled error', { request_id: request.state?.requestId, error: error as Error });
        apiError = internalError();
      }
      const state = request.state;
      request.response = problemResponse(apiError, state.requestId, request.event.path);
      await auditFailure(request, apiError);
    },
  };
}

async function auditFailure(request: PipelineRequest, error: ApiError): Promise<void> {
  const { state, event } = request;
  const op = state.operation;
  const caller = state.caller;
  const record: AuditRecord = {
    kind: error.status === 429 ? 'RATE_LIMITED' : error.status === 401 ? 'AUTHENTICATION_FAILED' : 'REQUEST_FAILED',
    request_id: state.requestId,
    method: event.httpMethod,
    route: op ? routeOf(op) : 'unmatched',
    status: error.status,
    code: error.code,
    source_ip: state.ip,
    ...(op ? { operation_id: op.id } : {}),
    ...(caller
      ? {
          actor_id: caller.userId,
          token_id: caller.tokenId,
          credential_type: caller.type,
          ...(caller.organisationId ? { organisation_id: caller.organisationId } : {}),
        }
      : {}),
  };
  try {
    if (error.status === 429) await writeSampledRateLimitAudit(record, state.startedAt);
    else await writeAudit(record, state.startedAt);
  } catch (auditError) {
    logger.error('failed to write the audit event of a failed request', { request_id: state.requestId, error: auditError as Error });
  }
}
