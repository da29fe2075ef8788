/**
 * `@smithy/core/event-streams` as the bundles have it (infra/bundling.ts aliases it here). The S3
 * client wires an event-stream marshaller into its configuration when it is built and loads the
 * codec only for operations that stream events (SelectObjectContent and the like), which no
 * function issues (infra/recorded-commands.json); the real module is about 15 KB in every bundle
 * that talks to S3. Building the client still works; streaming events fails loudly.
 */
function unsupported(): never {
  throw new Error('@smithy/core/event-streams is not bundled (infra/bundling.ts): no function issues an event-stream operation');
}

export const eventStreamSerdeProvider = () => ({ serialize: unsupported, deserialize: unsupported });

export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(input: T) =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
