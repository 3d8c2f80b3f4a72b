import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { apiVersions, currentApiVersion, type ApiVersion } from '../../http/api-versions.js';
import { AppError } from '../../http/errors.js';
import { buildOpenApi } from '../../http/openapi.js';
import { definePublicRoute, type AnyRoute } from '../../http/route.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

// The appliance is offline: the docs page uses Swagger UI's files from node_modules, never a CDN.
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'docs-init.js': 'application/javascript; charset=utf-8',
};

const initScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false });
});\n`;

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Pet-Care Platform API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs-init.js"></script>
</body>
</html>
`;

const security = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'",
  'X-Content-Type-Options': 'nosniff',
};

/** `tags`: each OpenAPI tag's description (the modules' manifests). */
export function docsRoutes(deps: { routes: () => readonly AnyRoute[]; platformVersion: string; tags: () => Readonly<Record<string, string>> }): AnyRoute[] {
  const documents = new Map<ApiVersion, Record<string, unknown>>();
  const cache = new Map<string, Buffer>();
  return [
    definePublicRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 document',
      description:
        'The document describes one dated API version: by default the current one; `version` names another, whose document lists only ' +
        'the parameters and answers that version has.',
      tags: ['Docs'],
      query: Type.Object(
        {
          version: Type.Optional(
            Type.Union(
              apiVersions.map((v) => Type.Literal(v)),
              { description: 'The dated API version to describe (default: the current one).' },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      response: { status: 200, description: 'OpenAPI document', schema: Type.Object({}, { additionalProperties: true }) },
      handler: async ({ query }) => {
        const version = query.version ?? currentApiVersion;
        let document = documents.get(version);
        if (!document) {
          document = buildOpenApi(deps.routes(), deps.platformVersion, deps.tags(), version);
          documents.set(version, document);
        }
        return { body: document };
      },
    }),
    definePublicRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getDocs',
      summary: 'Human-readable API reference (Swagger UI, served locally)',
      tags: ['Docs'],
      response: { status: 200, description: 'HTML page', schema: Type.String(), contentType: 'text/html; charset=utf-8' },
      handler: async () => ({ body: page, headers: security }),
    }),
    definePublicRoute({
      method: 'get',
      path: '/docs/assets/:file',
      operationId: 'getDocsAsset',
      summary: 'Docs page asset',
      tags: ['Docs'],
      hidden: true,
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      response: { status: 200, description: 'Static file', schema: Type.Any() },
      errors: ['route_not_found'],
      handler: async ({ params }) => {
        const type = assets[params.file];
        if (!type) throw new AppError('route_not_found', `No docs asset named ${params.file}.`);
        let body = cache.get(params.file);
        if (!body) {
          body = params.file === 'docs-init.js' ? Buffer.from(initScript) : readFileSync(path.join(swaggerDir, params.file));
          cache.set(params.file, body);
        }
        return { body, headers: { ...security, 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' } };
      },
    }),
  ];
}
