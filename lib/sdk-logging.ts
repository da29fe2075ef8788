/**
 * Takes the SDK's logger middleware off a client's stack. Our clients have no logger, and the SDK's
 * default one writes nothing, but the middleware still builds each command's log entry, copying its
 * input and output through the schema's filter of sensitive members, and then drops it: 2.4 % of an
 * API test worker's CPU, and the same work in each command of a function on Lambda.
 */
export function withoutSdkLogging(stack: { remove(name: string): boolean }): void {
  stack.remove('loggerMiddleware');
}
