import type { ModuleManifest } from '../../module-manifest.js';
import { eventRoutes } from './events.routes.js';

export const eventsModule: ModuleManifest<unknown> = {
  name: 'events',
  sdk: {
    events: {
      list: 'listEvents',
      get: 'getEvent',
      replay: 'replayEvent',
      types: 'listEventTypes',
    },
  },
  routes: () => eventRoutes(),
  tags: { Events: 'The event stream (evt_ ids) in the seed envelope, the catalogue with data schemas, and replay.' },
  tables: ['events'],
  access: {
    events: { location: null, why: 'events are published tenant-wide' },
  },
  reset: { rows: ['events'] },
};
