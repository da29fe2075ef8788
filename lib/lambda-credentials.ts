/**
 * The SDK's default credential provider as the bundled functions have it: infra/bundling.ts
 * aliases @aws-sdk/credential-provider-node to this module. Lambda hands a function its role's
 * credentials in the environment, the first place the default chain looks; the rest of the chain
 * (profiles, SSO, web identity, credential processes, instance metadata) and the STS and SSO
 * clients it carries never answer there and weigh about 130 KB of every bundle. The local runtime
 * and the tests that run unbundled keep the whole chain.
 */
export function defaultProvider() {
  return async () => {
    const {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_SESSION_TOKEN: sessionToken,
      AWS_CREDENTIAL_EXPIRATION: expiration,
    } = process.env;
    if (!accessKeyId || !secretAccessKey) throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).');
    return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), ...(expiration ? { expiration: new Date(expiration) } : {}) };
  };
}
