import { readFileSync } from 'node:fs';
import test from 'ava';
import { generateSdkTypes, sdkTypesPath } from '../../scripts/generate-sdk-types.js';

/**
 * The SDK's types are generated from the OpenAPI document the routes produce. When a route changes,
 * the checked-in file must be regenerated: this fails until it is.
 */
test('sdk/src/openapi-types.ts matches the OpenAPI document the server serves', async (a) => {
  const expected = await generateSdkTypes();
  const actual = readFileSync(sdkTypesPath, 'utf8');
  if (actual === expected) {
    a.pass();
    return;
  }
  const actualLines = actual.split('\n');
  const expectedLines = expected.split('\n');
  const first = expectedLines.findIndex((line, i) => line !== actualLines[i]);
  a.fail(
    `sdk/src/openapi-types.ts is out of date with the routes: run \`npm run sdk:types\` and commit the result.\n` +
      `First difference at line ${first + 1}:\n  checked in: ${actualLines[first] ?? '(end of file)'}\n  generated:  ${expectedLines[first] ?? '(end of file)'}`,
  );
});
