/**
 * Events carry data of every location, and webhook endpoints receive all of them: a client confined
 * to locations may not read the stream nor manage endpoints (403, not a filtered view, because not
 * every event names a location). Their routes say `tenantWide: eventsSpanTenant`; the router refuses.
 */
export const eventsSpanTenant = 'Events and webhook endpoints span every location of the tenant';
