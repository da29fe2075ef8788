import type { EventBridgeEvent } from 'aws-lambda';
import { applyVerdict, type MalwareVerdict } from '../../lib/files/scan.js';

interface ScanResult {
  scanResultDetails: { scanResultStatus: 'NO_THREATS_FOUND' | 'THREATS_FOUND' | 'UNSUPPORTED' | 'ACCESS_DENIED' | 'FAILED' };
  s3ObjectDetails: { objectKey: string };
}

const VERDICTS: Record<ScanResult['scanResultDetails']['scanResultStatus'], MalwareVerdict> = {
  NO_THREATS_FOUND: 'clean',
  THREATS_FOUND: 'malicious',
  UNSUPPORTED: 'failed',
  ACCESS_DENIED: 'failed',
  FAILED: 'failed',
};

/** GuardDuty Malware Protection for S3 result events, routed by EventBridge to the same verdict handler as the local scanner. */
export const handler = (event: EventBridgeEvent<'GuardDuty Malware Protection Object Scan Result', ScanResult>): Promise<void> =>
  applyVerdict(event.detail.s3ObjectDetails.objectKey, VERDICTS[event.detail.scanResultDetails.scanResultStatus], new Date());
