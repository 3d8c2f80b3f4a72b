import { Type } from '@sinclair/typebox';
import { AppError } from '../../http/errors.js';
import { definePublicRoute, type AnyRoute } from '../../http/route.js';
import { consoleLoader } from './console-assets.js';
import type { ConsoleBundle } from './console-build.js';

const tags = ['Console'];

/**
 * The console's page and assets may load only from this origin: no inline script or style, no
 * other origin for scripts, styles, images, fonts or API calls, no framing, no plugins.
 */
export const consoleSecurityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const notBuilt = () => new AppError('service_unavailable', 'The console is not built: run `npm run build`, which writes it to dist/console.');

/** `load` finds the built console (dist/console, or built from source); tests pass their own. */
export function consoleRoutes(load: () => Promise<ConsoleBundle | undefined> = consoleLoader()): AnyRoute[] {
  const bundle = async (): Promise<ConsoleBundle> => (await load()) ?? Promise.reject(notBuilt());
  return [
    definePublicRoute({
      method: 'get',
      path: '/console',
      operationId: 'getConsole',
      summary: 'The admin console (a web page)',
      description:
        'The single-page admin console: sign in with a client id and secret (the token stays in the page, in memory), then the panels your scopes allow. ' +
        'Served with a Content-Security-Policy that allows no inline script and no other origin. 503 `service_unavailable` when the console was not built.',
      tags,
      response: { status: 200, description: 'HTML page', schema: Type.Any(), contentType: 'text/html; charset=utf-8' },
      errors: ['service_unavailable'],
      handler: async () => ({
        body: (await bundle()).page,
        // The page names the current hashed assets, so it is revalidated on every load.
        headers: { ...consoleSecurityHeaders, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
      }),
    }),
    definePublicRoute({
      method: 'get',
      path: '/console/assets/:file',
      operationId: 'getConsoleAsset',
      summary: 'Console asset',
      tags,
      hidden: true,
      params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
      response: { status: 200, description: 'Static file', schema: Type.Any() },
      errors: ['route_not_found', 'service_unavailable'],
      handler: async ({ params }) => {
        // Only names the build produced are served: a lookup in memory, never a path on disk.
        const asset = (await bundle()).assets.get(params.file);
        if (!asset) throw new AppError('route_not_found', 'No console asset has this name.');
        return {
          body: asset.body,
          // Names carry a content hash: a changed file gets a new name, so the old one may be cached for good.
          headers: { ...consoleSecurityHeaders, 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=31536000, immutable' },
        };
      },
    }),
  ];
}
