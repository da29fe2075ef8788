import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { StreamingRuntime } from '../http/streaming.js';

/**
 * Lambda's response-streaming runtime, played by the local server: the response stream is the
 * HTTP response itself, so a streamed download reaches the client as it is written.
 */
export const localStreamingRuntime: StreamingRuntime = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: {
    from(stream: Writable, metadata) {
      (stream as ServerResponse).writeHead(metadata.statusCode, metadata.headers);
      return stream;
    },
  },
};
