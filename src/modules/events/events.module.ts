import type { ModuleManifest } from '../../module-manifest.js';
import type { EventStreams } from './event-stream.js';
import { eventStreamRoutes } from './event-stream.routes.js';
import { eventRoutes } from './events.routes.js';

export const eventsModule: ModuleManifest<{ eventStreams: EventStreams }> = {
  name: 'events',
  sdk: {
    events: {
      list: 'listEvents',
      get: 'getEvent',
      replay: 'replayEvent',
      types: 'listEventTypes',
    },
  },
  // The stream first: /v1/events/stream is not an event id.
  routes: (deps) => [...eventStreamRoutes(deps.eventStreams), ...eventRoutes()],
  tags: { Events: 'The event stream (evt_ ids) in the seed envelope, the catalogue with data schemas, and replay.' },
  tables: ['events'],
  access: {
    events: { location: null, why: 'events are published tenant-wide' },
  },
  reset: { rows: ['events'] },
};
