/**
 * Writes the OpenAPI document the app serves at /openapi.json to openapi.generated.json (or the
 * path given), for `npm run lint:openapi`: the same document the SDK's types are generated from
 * (`buildOpenApiDocument`, the app on a throwaway data directory).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiVersions, isApiVersion, type ApiVersion } from '../src/http/api-versions.js';
import { buildOpenApiDocument } from './generate-sdk-types.js';

// `[path] [version]`: a dated API version's document (as /openapi.json?version= serves it); default the current one.
const out = path.resolve(process.argv[2] ?? 'openapi.generated.json');
const version = process.argv[3] as ApiVersion | undefined;
if (version !== undefined && !isApiVersion(version)) throw new Error(`unknown API version ${version}; one of ${apiVersions.join(', ')}`);
writeFileSync(out, `${JSON.stringify(await buildOpenApiDocument(version), null, 2)}\n`);
process.stdout.write(`wrote ${out}\n`);
