export { PetCare, type Resources, type ListFn, type RawRequest } from './client.js';
export type { PetCareOptions } from './transport.js';
export type { EventStreamOptions, StreamedEvent } from './event-stream.js';
export { PetCareError, WebhookVerificationError, type FieldError, type ProblemBody } from './errors.js';
export { PageIterable, type Page } from './pagination.js';
export { verifyWebhook, webhooks, type VerifyOptions, type WebhookEvent } from './webhooks.js';
export type {
  Answer,
  AnswerOf,
  Body,
  BodyOf,
  CallOptions,
  HttpMethod,
  ItemOf,
  Operation,
  OperationFn,
  PathsWith,
  Query,
  QueryOf,
  components,
  operations,
  paths,
} from './types.js';
