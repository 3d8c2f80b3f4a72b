import type { Config } from '../../config.js';
import type { AnyRoute } from '../../http/route.js';
import { tagDescriptionsOf, type ModuleManifest } from '../../module-manifest.js';
import { docsRoutes } from './docs.routes.js';

/** /openapi.json and the docs page, over every route and tag of the app (hence after every other module). */
export const docsModule: ModuleManifest<{ config: Config; routes: () => readonly AnyRoute[]; modules: () => readonly ModuleManifest[] }> = {
  name: 'docs',
  routes: (deps) => docsRoutes({ routes: deps.routes, platformVersion: deps.config.platformVersion, tags: () => tagDescriptionsOf(deps.modules()) }),
  tags: { Docs: 'This document.' },
};
