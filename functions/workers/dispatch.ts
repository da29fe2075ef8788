import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { dispatchStream } from '../../lib/jobs/dispatch.js';

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => dispatchStream(event);
