export { emit, type EmittedEvent } from './emit.js';
export { EventStreams } from './event-stream.js';
export { eventRoutes } from './events.routes.js';
export { eventsSpanTenant } from './events-access.js';
export { envelopeJson, presentEvent } from './events.presenter.js';
export { eventsBetween, findEvent } from './events.repository.js';
export { EventEnvelopeSchema, eventTypeNameSchema } from './events.schema.js';
export {
  aliasesOf,
  canonicalEventTypes,
  canonicalOf,
  eventData,
  eventFields,
  eventTypeAliases,
  eventTypeInfo,
  eventTypeNames,
  registerEventTypes,
  testEventData,
  testEventType,
  type EventData,
  type EventType,
  type EventTypeAlias,
  type EventTypeInfo,
  type EventTypeName,
} from './event-types.js';
export { eventsModule } from './events.module.js';
