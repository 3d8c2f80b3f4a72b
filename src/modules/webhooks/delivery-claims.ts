import type { Executor } from '../../db/database.js';
import { cancelDelivery } from './deliveries.repository.js';
import type { Claim, DeliveryStatements, DueDelivery } from './delivery-statements.js';

/**
 * Limits per environment. Claims are taken in batches (each transaction waits its turn behind the
 * API's writes, so a batch must carry many deliveries to keep up with a busy write path); claimed
 * attempts wait in memory for a connection. Per endpoint: 64 requests at once (on a saturated event
 * loop each answer takes tens of ms to be read) and 256 claimed and not yet answered, so a hanging
 * receiver slows only itself. An answered attempt waits for the next pass to record it (~25 ms)
 * without counting against these: it no longer waits on the receiver.
 */
export const limits = { claimed: 1024, claimedPerEndpoint: 256, sending: 128, sendingPerEndpoint: 64 } as const;
const fanOutBatch = 500;
const leaseMarginMs = 60_000;

/** Claims may wait in memory behind a slow receiver; the lease must outlast that wait. */
export const claimLeaseMs = (timeoutMs: number): number => timeoutMs * Math.ceil(limits.claimedPerEndpoint / limits.sendingPerEndpoint + 1) + leaseMarginMs;

export interface ClaimRound {
  claimed: Claim[];
  fannedOut: number;
  queued: number;
  cancelled: number;
  /** The fan-out took a full batch: more events wait. */
  moreQueued: boolean;
}

/**
 * What one dispatcher transaction claims: each live endpoint's due deliveries up to its allowance
 * (cancelling those of a disabled endpoint or a vanished event), then new events fanned out, their
 * deliveries claimed at once for endpoints whose backlog was claimed to the end.
 * `held`: attempts this process already holds per endpoint; `free`: claims it may still take.
 */
export async function claimDue(
  trx: Executor,
  statements: DeliveryStatements,
  args: { instanceId: string; now: number; leaseMs: number; held: ReadonlyMap<string, number>; free: number },
): Promise<ClaimRound> {
  const { instanceId, now, leaseMs } = args;
  const claimedByEndpoint = new Map(args.held);
  let free = args.free;
  let cancelled = 0;
  const take: DueDelivery[] = [];
  // Endpoints whose due backlog was claimed to the end: their new deliveries may be claimed as they are written.
  const drained = new Set<string>();
  for (const endpoint of statements.liveEndpoints()) {
    const held = claimedByEndpoint.get(endpoint.id) ?? 0;
    // An endpoint holding half its allowance or more waits: claims come in big batches, not a few at a time.
    if (free <= 0 || held >= limits.claimedPerEndpoint / 2) continue;
    const room = Math.min(free, limits.claimedPerEndpoint - held);
    const due = statements.dueDeliveries(endpoint.id, now, room);
    if (due.length < room) drained.add(endpoint.id);
    for (const delivery of due) {
      if (delivery.enabled !== 1 && delivery.kind !== 'test') {
        await cancelDelivery(trx, delivery, 'endpoint disabled', now);
        cancelled++;
      } else if (delivery.payload === null && delivery.event_data === null) {
        await cancelDelivery(trx, delivery, 'the event no longer exists', now);
        cancelled++;
      } else {
        take.push(delivery);
        claimedByEndpoint.set(endpoint.id, (claimedByEndpoint.get(endpoint.id) ?? 0) + 1);
        free--;
      }
    }
  }
  const claimed = statements.claim(take, instanceId, now, leaseMs);
  const fan = statements.fanOut(
    now,
    fanOutBatch,
    (endpointId) => {
      const held = claimedByEndpoint.get(endpointId) ?? 0;
      if (free <= 0 || !drained.has(endpointId) || held >= limits.claimedPerEndpoint) return false;
      claimedByEndpoint.set(endpointId, held + 1);
      free--;
      return true;
    },
    { instanceId, leaseMs },
  );
  for (const claim of fan.claimed) claimed.push(claim);
  return { claimed, fannedOut: fan.events, queued: fan.deliveries, cancelled, moreQueued: fan.events === fanOutBatch };
}
