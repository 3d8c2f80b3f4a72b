/**
 * Writes the OpenAPI document the app serves at /openapi.json to openapi.generated.json (or the
 * path given), for `npm run lint:openapi`: the same document the SDK's types are generated from
 * (`buildOpenApiDocument`, the app on a throwaway data directory).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from './generate-sdk-types.js';

const out = path.resolve(process.argv[2] ?? 'openapi.generated.json');
writeFileSync(out, `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${out}\n`);
