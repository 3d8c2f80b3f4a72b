import { readFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import {
  generateSdkErrorCodes,
  generateSdkResources,
  generateSdkTypes,
  sdkErrorCodesPath,
  sdkResourcesPath,
  sdkTypesPath,
} from '../../scripts/generate-sdk-types.js';

/** Fails naming the first line where the checked-in file differs from what the generator writes now. */
function sameAsGenerated(a: ExecutionContext, file: string, expected: string, from: string): void {
  const actual = readFileSync(file, 'utf8');
  if (actual === expected) {
    a.pass();
    return;
  }
  const actualLines = actual.split('\n');
  const expectedLines = expected.split('\n');
  const first = expectedLines.findIndex((line, i) => line !== actualLines[i]);
  a.fail(
    `sdk/src/${path.basename(file)} is out of date with ${from}: run \`npm run sdk:types\` and commit the result.\n` +
      `First difference at line ${first + 1}:\n  checked in: ${actualLines[first] ?? '(end of file)'}\n  generated:  ${expectedLines[first] ?? '(end of file)'}`,
  );
}

/**
 * The SDK's types are generated from the OpenAPI document the routes produce. When a route changes,
 * the checked-in file must be regenerated: this fails until it is.
 */
test('sdk/src/openapi-types.ts matches the OpenAPI document the server serves', async (a) => {
  sameAsGenerated(a, sdkTypesPath, await generateSdkTypes(), 'the routes');
});

/** The SDK's resource table is generated from the manifests' `sdk` names and their routes: a new or renamed method fails here until regenerated. */
test("sdk/src/resources.ts matches the manifests' SDK names and their routes", async (a) => {
  sameAsGenerated(a, sdkResourcesPath, await generateSdkResources(), "the manifests' sdk names and the routes");
});

/** The SDK's error codes are generated from the codes the API declares: a new module code fails here until regenerated. */
test("sdk/src/error-codes.ts matches the API's error codes", async (a) => {
  sameAsGenerated(a, sdkErrorCodesPath, await generateSdkErrorCodes(), "the gateway's and the modules' error codes");
});
