/**
 * The client. Resources are declared as data — `[method, path]` pairs named as the paths — and
 * turned into methods by one builder, so each method's ids, query, body and answer types come from
 * the generated OpenAPI types for that path and method:
 *
 * - `['post' | 'get' | 'patch' | 'put' | 'delete', path]`: `(...ids, body or query, options?)`
 * - `['action', path]`: a POST without a body: `(...ids, options?)`
 * - `['list', path]`: `(...ids, query?, options?)` → a PageIterable over every page
 */
import { PageIterable, type Page } from './pagination.js';
import { Transport, paramCount, type PetCareOptions } from './transport.js';
import type { Answer, Body, CallOptions, HttpMethod, IdArgs, ItemOf, Operation, OperationFn, PathsWith, QueryOf } from './types.js';
import type { paths } from './openapi-types.js';
import { verifyWebhook } from './webhooks.js';

type Entry = readonly [HttpMethod | 'action' | 'list', keyof paths & string];
interface Table {
  readonly [name: string]: Entry | Table;
}

/** A list method: the ids, then the filters (the cursor is the iterator's business). */
export type ListFn<P extends PathsWith<'get'> & string> = (
  ...args: [...IdArgs<P>, query?: Omit<QueryOf<Operation<P, 'get'>>, 'cursor'>, options?: CallOptions]
) => PageIterable<ItemOf<Operation<P, 'get'>>>;

type Methods<T> = {
  readonly [K in keyof T]: T[K] extends readonly ['list', infer P extends PathsWith<'get'> & string]
    ? ListFn<P>
    : T[K] extends readonly ['action', infer P extends PathsWith<'post'> & string]
      ? OperationFn<P, 'post'>
      : T[K] extends readonly [infer M extends HttpMethod, infer P extends keyof paths & string]
        ? OperationFn<P, M>
        : Methods<T[K]>;
};

const resources = {
  clients: {
    create: ['post', '/v1/clients'],
    list: ['list', '/v1/clients'],
    get: ['get', '/v1/clients/{id}'],
    update: ['patch', '/v1/clients/{id}'],
    rotateSecret: ['action', '/v1/clients/{id}/rotate-secret'],
  },
  locations: {
    create: ['post', '/v1/locations'],
    list: ['list', '/v1/locations'],
    get: ['get', '/v1/locations/{id}'],
    update: ['patch', '/v1/locations/{id}'],
  },
  petParents: {
    create: ['post', '/v1/pet-parents'],
    list: ['list', '/v1/pet-parents'],
    get: ['get', '/v1/pet-parents/{id}'],
    update: ['patch', '/v1/pet-parents/{id}'],
  },
  pets: {
    create: ['post', '/v1/pets'],
    list: ['list', '/v1/pets'],
    get: ['get', '/v1/pets/{id}'],
    update: ['patch', '/v1/pets/{id}'],
    vaccinations: {
      create: ['post', '/v1/pets/{id}/vaccinations'],
      list: ['list', '/v1/pets/{id}/vaccinations'],
    },
    medicalRecords: {
      create: ['post', '/v1/pets/{id}/medical'],
      list: ['list', '/v1/pets/{id}/medical'],
      amend: ['post', '/v1/pets/{id}/medical/{recordId}/amendments'],
    },
    documents: {
      list: ['list', '/v1/pets/{id}/documents'],
    },
  },
  vaccinations: {
    get: ['get', '/v1/vaccinations/{id}'],
  },
  medicalRecords: {
    get: ['get', '/v1/medical-records/{id}'],
  },
  documents: {
    get: ['get', '/v1/documents/{id}'],
    delete: ['delete', '/v1/documents/{id}'],
  },
  providers: {
    create: ['post', '/v1/providers'],
    list: ['list', '/v1/providers'],
    get: ['get', '/v1/providers/{id}'],
    update: ['patch', '/v1/providers/{id}'],
    match: ['post', '/v1/providers/match'],
    approve: ['action', '/v1/providers/{id}/approve'],
    suspend: ['action', '/v1/providers/{id}/suspend'],
    availability: ['get', '/v1/providers/availability'],
    listings: {
      create: ['post', '/v1/providers/{id}/listings'],
      update: ['patch', '/v1/providers/{id}/listings/{listingId}'],
    },
    ratings: {
      create: ['post', '/v1/providers/ratings'],
    },
    reviews: {
      list: ['list', '/v1/providers/reviews'],
      reply: ['post', '/v1/providers/reviews/{id}/reply'],
    },
  },
  appointmentTypes: {
    create: ['post', '/v1/appointment-types'],
    list: ['get', '/v1/appointment-types'],
    get: ['get', '/v1/appointment-types/{code}'],
    update: ['patch', '/v1/appointment-types/{code}'],
  },
  appointments: {
    create: ['post', '/v1/appointments'],
    list: ['list', '/v1/appointments'],
    get: ['get', '/v1/appointments/{id}'],
    update: ['patch', '/v1/appointments/{id}'],
    availability: ['get', '/v1/appointments/availability'],
    schedules: {
      list: ['list', '/v1/appointments/schedules'],
      put: ['put', '/v1/appointments/schedules/{providerId}'],
    },
  },
  notifications: {
    create: ['post', '/v1/notifications'],
    list: ['list', '/v1/notifications'],
    get: ['get', '/v1/notifications/{id}'],
  },
  ledgerEntries: {
    list: ['list', '/v1/ledger/entries'],
  },
  invoices: {
    create: ['post', '/v1/invoices'],
    list: ['list', '/v1/invoices'],
    get: ['get', '/v1/invoices/{id}'],
    update: ['patch', '/v1/invoices/{id}'],
    finalize: ['action', '/v1/invoices/{id}/finalize'],
    void: ['action', '/v1/invoices/{id}/void'],
    markUncollectible: ['action', '/v1/invoices/{id}/mark-uncollectible'],
  },
  payments: {
    create: ['post', '/v1/payments'],
    list: ['list', '/v1/payments'],
    get: ['get', '/v1/payments/{id}'],
  },
  refunds: {
    create: ['post', '/v1/refunds'],
    list: ['list', '/v1/refunds'],
    get: ['get', '/v1/refunds/{id}'],
  },
  wallets: {
    create: ['post', '/v1/wallets'],
    list: ['list', '/v1/wallets'],
    get: ['get', '/v1/wallets/{id}'],
    topUp: ['post', '/v1/wallets/{id}/top-ups'],
    adjust: ['post', '/v1/wallets/{id}/adjustments'],
    transactions: ['list', '/v1/wallets/{id}/transactions'],
  },
  subscriptions: {
    create: ['post', '/v1/subscriptions'],
    list: ['list', '/v1/subscriptions'],
    get: ['get', '/v1/subscriptions/{id}'],
    update: ['patch', '/v1/subscriptions/{id}'],
    cancel: ['post', '/v1/subscriptions/{id}/cancel'],
  },
  settlements: {
    list: ['list', '/v1/settlements'],
    get: ['get', '/v1/settlements/{id}'],
    markPaid: ['action', '/v1/settlements/{id}/mark-paid'],
  },
  orders: {
    create: ['post', '/v1/orders'],
    list: ['list', '/v1/orders'],
    get: ['get', '/v1/orders/{id}'],
    cancel: ['post', '/v1/orders/{id}/cancel'],
    refund: ['post', '/v1/orders/{id}/refund'],
  },
  commissions: {
    list: ['list', '/v1/commissions'],
  },
  marketplace: {
    bookings: {
      get: ['get', '/v1/marketplace/bookings/{id}'],
      complete: ['action', '/v1/marketplace/bookings/{id}/complete'],
    },
    settlements: {
      create: ['post', '/v1/marketplace/settlements'],
      get: ['get', '/v1/marketplace/settlements/{id}'],
    },
  },
  analytics: {
    summary: ['get', '/v1/analytics/summary'],
    metrics: {
      get: ['get', '/v1/analytics/metrics/{name}'],
      records: ['list', '/v1/analytics/metrics/{name}/records'],
    },
  },
  ai: {
    services: {
      create: ['post', '/v1/ai/services'],
      list: ['list', '/v1/ai/services'],
      get: ['get', '/v1/ai/services/{id}'],
      reindex: ['action', '/v1/ai/services/{id}/reindex'],
    },
    knowledge: {
      /** JSON forms: `{title, text}` or `{documentId}`; a file goes through `upload(serviceId, {file, filename})`. */
      add: ['post', '/v1/ai/services/{id}/documents'],
      list: ['list', '/v1/ai/services/{id}/documents'],
      get: ['get', '/v1/ai/services/{id}/documents/{docId}'],
      query: ['post', '/v1/ai/services/{id}/query'],
    },
    agent: {
      query: ['post', '/ai/agent/query'],
    },
    answers: {
      get: ['get', '/v1/ai/answers/{id}'],
    },
    careCoordinator: ['get', '/v1/agents/care-coordinator'],
    recalls: {
      create: ['post', '/v1/ai/recall'],
      list: ['list', '/v1/ai/recall'],
      get: ['get', '/v1/ai/recall/{id}'],
    },
  },
  boarding: {
    rooms: {
      create: ['post', '/v1/boarding/rooms'],
      list: ['list', '/v1/boarding/rooms'],
      get: ['get', '/v1/boarding/rooms/{id}'],
      update: ['patch', '/v1/boarding/rooms/{id}'],
    },
    bookings: {
      create: ['post', '/v1/boarding/bookings'],
      list: ['list', '/v1/boarding/bookings'],
      get: ['get', '/v1/boarding/bookings/{id}'],
      cancel: ['post', '/v1/boarding/bookings/{id}/cancel'],
      noShow: ['post', '/v1/boarding/bookings/{id}/no-show'],
    },
    checkIn: ['post', '/v1/boarding/check-in'],
    checkOut: ['post', '/v1/boarding/check-out'],
    occupancy: ['get', '/v1/boarding/occupancy'],
    carePlans: {
      create: ['post', '/v1/boarding/care-plans'],
      list: ['list', '/v1/boarding/care-plans'],
      get: ['get', '/v1/boarding/care-plans/{id}'],
      update: ['patch', '/v1/boarding/care-plans/{id}'],
      logDose: ['post', '/v1/boarding/care-plans/{id}/doses'],
      doses: ['list', '/v1/boarding/care-plans/{id}/doses'],
    },
  },
  grooming: {
    packages: {
      create: ['post', '/v1/grooming/packages'],
      list: ['list', '/v1/grooming/packages'],
      get: ['get', '/v1/grooming/packages/{id}'],
      update: ['patch', '/v1/grooming/packages/{id}'],
    },
    appointments: {
      create: ['post', '/v1/grooming/appointments'],
      list: ['list', '/v1/grooming/appointments'],
      get: ['get', '/v1/grooming/appointments/{id}'],
      update: ['patch', '/v1/grooming/appointments/{id}'],
    },
    availability: ['get', '/v1/grooming/availability'],
    assignStylist: ['post', '/v1/grooming/stylists/assign'],
    memberships: {
      create: ['post', '/v1/grooming/memberships'],
      list: ['list', '/v1/grooming/memberships'],
      get: ['get', '/v1/grooming/memberships/{id}'],
      cancel: ['action', '/v1/grooming/memberships/{id}/cancel'],
    },
    packageCredits: {
      buy: ['post', '/v1/grooming/package-credits'],
      list: ['list', '/v1/grooming/package-credits'],
      get: ['get', '/v1/grooming/package-credits/{id}'],
    },
  },
  events: {
    list: ['list', '/v1/events'],
    get: ['get', '/v1/events/{id}'],
    replay: ['post', '/v1/events/{id}/replay'],
    types: ['get', '/v1/event-types'],
  },
  webhookEndpoints: {
    create: ['post', '/v1/webhook-endpoints'],
    list: ['list', '/v1/webhook-endpoints'],
    get: ['get', '/v1/webhook-endpoints/{id}'],
    update: ['patch', '/v1/webhook-endpoints/{id}'],
    delete: ['delete', '/v1/webhook-endpoints/{id}'],
    rotateSecret: ['post', '/v1/webhook-endpoints/{id}/rotate-secret'],
    test: ['action', '/v1/webhook-endpoints/{id}/test'],
    deliveries: ['list', '/v1/webhook-endpoints/{id}/deliveries'],
    replay: ['post', '/v1/webhook-endpoints/{id}/replay'],
  },
  auditEvents: {
    list: ['list', '/v1/audit-events'],
  },
  jobs: {
    list: ['get', '/v1/jobs'],
    get: ['get', '/v1/jobs/{name}'],
    run: ['post', '/v1/jobs/{name}/run'],
  },
  sandbox: {
    clock: ['get', '/v1/sandbox/clock'],
    advanceClock: ['post', '/v1/sandbox/clock'],
    reset: ['action', '/v1/sandbox/reset'],
  },
} as const satisfies Table;

export type Resources = Methods<typeof resources>;

/** Turns one `[kind, path]` entry into its method. */
function method(transport: Transport, [kind, path]: Entry): (...args: unknown[]) => unknown {
  const n = paramCount(path);
  const split = (args: unknown[]) => ({ ids: args.slice(0, n) as string[], input: args[n], options: args[n + 1] as CallOptions | undefined });
  if (kind === 'list') {
    return (...args: unknown[]) => {
      const { ids, input, options } = split(args);
      const query = (input ?? {}) as Record<string, unknown>;
      return new PageIterable((cursor) => transport.request('get', path, { ids, query: { ...query, cursor } }, options) as Promise<Page<unknown>>);
    };
  }
  if (kind === 'action') {
    return (...args: unknown[]) => transport.request('post', path, { ids: args.slice(0, n) as string[] }, args[n] as CallOptions | undefined);
  }
  const inQuery = kind === 'get' || kind === 'delete';
  return (...args: unknown[]) => {
    const { ids, input, options } = split(args);
    return transport.request(kind, path, inQuery ? { ids, query: input as Record<string, unknown> | undefined } : { ids, body: input }, options);
  };
}

function build(transport: Transport, table: Table): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(table)) out[name] = isEntry(value) ? method(transport, value) : build(transport, value);
  return out;
}

const isEntry = (value: Entry | Table): value is Entry => Array.isArray(value);

/** A file for `ai.knowledge.upload`: its bytes (Blob, Buffer or Uint8Array), a name, and optionally a title and type. */
export interface KnowledgeFile {
  file: Blob | Uint8Array;
  filename: string;
  title?: string;
  contentType?: string;
}

/** The JSON forms (the schema's `file` form documents the multipart part). */
type KnowledgeJson = Exclude<Body<'/v1/ai/services/{id}/documents', 'post'>, { file: unknown }>;
type KnowledgeDocument = Answer<'/v1/ai/services/{id}/documents', 'post'>;
/** `ai.knowledge.upload(serviceId, input, options?)`: a file (multipart) or the JSON forms `{title, text}` / `{documentId}`. */
export type KnowledgeUploadFn = (serviceId: string, input: KnowledgeFile | KnowledgeJson, options?: CallOptions) => Promise<KnowledgeDocument>;

/** Sends a file as multipart/form-data (one `file` part, an optional `title`); the JSON forms go through the table's method. */
function knowledgeUpload(transport: Transport, json: KnowledgeUploadFn): KnowledgeUploadFn {
  return (serviceId, input, options) => {
    if (!('filename' in input)) return json(serviceId, input, options);
    const form = new FormData();
    if (input.title !== undefined) form.append('title', input.title);
    const blob =
      input.file instanceof Blob ? input.file : new Blob([input.file as Uint8Array<ArrayBuffer>], input.contentType ? { type: input.contentType } : {});
    form.append('file', blob, input.filename);
    return transport.request('post', '/v1/ai/services/{id}/documents', { ids: [serviceId], form }, options) as Promise<KnowledgeDocument>;
  };
}

/** Request input for `client.request()`: the path's ids, the query and the JSON body. */
export interface RawRequest {
  ids?: readonly string[];
  query?: Record<string, unknown>;
  body?: unknown;
}

/** The Pet-Care Platform client. */
export class PetCare {
  readonly clients!: Resources['clients'];
  readonly locations!: Resources['locations'];
  readonly petParents!: Resources['petParents'];
  readonly pets!: Resources['pets'];
  readonly vaccinations!: Resources['vaccinations'];
  readonly medicalRecords!: Resources['medicalRecords'];
  readonly documents!: Resources['documents'];
  readonly providers!: Resources['providers'];
  readonly appointmentTypes!: Resources['appointmentTypes'];
  readonly appointments!: Resources['appointments'];
  readonly notifications!: Resources['notifications'];
  readonly ledgerEntries!: Resources['ledgerEntries'];
  readonly invoices!: Resources['invoices'];
  readonly payments!: Resources['payments'];
  readonly refunds!: Resources['refunds'];
  readonly wallets!: Resources['wallets'];
  readonly subscriptions!: Resources['subscriptions'];
  readonly settlements!: Resources['settlements'];
  readonly orders!: Resources['orders'];
  readonly commissions!: Resources['commissions'];
  readonly marketplace!: Resources['marketplace'];
  readonly analytics!: Resources['analytics'];
  /** Knowledge services, documents and answers, the agent query, the care coordinator and recalls; `ai.knowledge.upload` also sends files. */
  readonly ai!: Resources['ai'] & { knowledge: { upload: KnowledgeUploadFn } };
  readonly boarding!: Resources['boarding'];
  readonly grooming!: Resources['grooming'];
  readonly events!: Resources['events'];
  readonly webhookEndpoints!: Resources['webhookEndpoints'];
  readonly auditEvents!: Resources['auditEvents'];
  readonly jobs!: Resources['jobs'];
  readonly sandbox!: Resources['sandbox'];
  /** `webhooks.verify(rawBody, signatureHeader, secret, options?)`: the same as the standalone `verifyWebhook`. */
  readonly webhooks = { verify: verifyWebhook };

  private readonly transport: Transport;

  constructor(options: PetCareOptions) {
    this.transport = new Transport(options);
    Object.assign(this, build(this.transport, resources));
    const knowledge = (this.ai as { knowledge: Record<string, unknown> }).knowledge;
    knowledge.upload = knowledgeUpload(this.transport, knowledge.add as KnowledgeUploadFn);
  }

  /** Any call by method and path template (`/v1/pets/{id}`), for what has no named method. */
  request(method: HttpMethod, path: string, input: RawRequest = {}, options?: CallOptions): Promise<unknown> {
    return this.transport.request(method, path, input, options);
  }
}
