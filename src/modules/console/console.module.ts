import type { ModuleManifest } from '../../module-manifest.js';
import { consoleRoutes } from './console.routes.js';

export const consoleModule: ModuleManifest<unknown> = {
  name: 'console',
  routes: () => consoleRoutes(),
  tags: { Console: 'The admin console web page and its static assets (served locally, strict Content-Security-Policy).' },
};
