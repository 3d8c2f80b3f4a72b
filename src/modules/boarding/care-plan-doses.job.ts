import { isoAt } from '../../clock.js';
import { acrossTenants, scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import type { AccessFilter } from '../../http/actor.js';
import type { JobDefinition } from '../../jobs/job-definition.js';
import { emit } from '../events/index.js';
import { businessNow } from '../business-clock/index.js';
import { medicationsOf } from './care-plans.presenter.js';
import { medicationKey, scheduledDoses } from './dose-schedule.js';

interface PlanInHouse {
  id: string;
  tenant_id: string;
  booking_id: string;
  pet_id: string;
  location_id: string;
  medications: string;
  created_at: string;
  checked_in_at: string | null;
  timezone: string;
}

/** A plan's whole tenant: the job works on one tenant's plan at a time. */
const tenantOf = (plan: Pick<PlanInHouse, 'tenant_id'>): AccessFilter => ({ tenantId: plan.tenant_id, locationIds: null });

/** Care plans of stays in house now, in every tenant, with what the schedule needs. */
async function plansInHouse(db: Executor): Promise<PlanInHouse[]> {
  return acrossTenants(db, 'the care-plan-doses job watches the checked-in stays of every tenant (each plan keeps its tenant_id)')
    .selectFrom('boarding_care_plans')
    .innerJoin('bookings', 'bookings.id', 'boarding_care_plans.booking_id')
    .innerJoin('boarding_stays', 'boarding_stays.booking_id', 'boarding_care_plans.booking_id')
    .innerJoin('locations', 'locations.id', 'boarding_care_plans.location_id')
    .select([
      'boarding_care_plans.id',
      'boarding_care_plans.tenant_id',
      'boarding_care_plans.booking_id',
      'boarding_care_plans.pet_id',
      'boarding_care_plans.location_id',
      'boarding_care_plans.medications',
      'boarding_care_plans.created_at',
      'boarding_stays.checked_in_at',
      'locations.timezone',
    ])
    .where('bookings.status', '=', 'checked_in')
    .orderBy('boarding_care_plans.id')
    .execute();
}

/** Doses are expected from the later of the check-in and the plan's creation on (not before either). */
export const doseWatchStart = (plan: Pick<PlanInHouse, 'created_at' | 'checked_in_at'>): number =>
  Math.max(Date.parse(plan.checked_in_at ?? plan.created_at), Date.parse(plan.created_at));

/**
 * The doses of a plan scheduled from its watch start up to `cutoff` with nothing logged for them (a
 * dose logged given, refused or skipped counts as logged): what this job announces as overdue and
 * the care coordinator lists as missed.
 */
export async function missedDoses(
  db: Executor,
  plan: Pick<PlanInHouse, 'id' | 'tenant_id' | 'medications' | 'timezone' | 'created_at' | 'checked_in_at'>,
  cutoff: number,
): Promise<Array<{ medication: string; scheduledFor: string }>> {
  const due = scheduledDoses(medicationsOf(plan), plan.timezone, doseWatchStart(plan), cutoff);
  if (due.length === 0) return [];
  const logged = await scoped(db, tenantOf(plan))
    .selectFrom('boarding_doses')
    .select(['medication_key', 'scheduled_for'])
    .where('care_plan_id', '=', plan.id)
    .execute();
  const known = new Set(logged.map((d) => `${d.medication_key}|${d.scheduled_for}`));
  return due.filter((dose) => !known.has(`${medicationKey(dose.medication)}|${dose.scheduledFor}`));
}

/**
 * Every 5 minutes, and on demand: for each care plan of a checked-in stay, every medication dose
 * whose time (a local time at the location) passed more than PETCARE_DOSE_OVERDUE_MINUTES ago with
 * no dose logged for it is announced once as `boarding.dose_overdue`. The alert ledger's primary key
 * (plan, medication, scheduledFor) makes it once, whatever how often or how concurrently it runs.
 */
export function carePlanDosesJob(): JobDefinition {
  return {
    name: 'care-plan-doses',
    description:
      'Every 5 minutes. Emits boarding.dose_overdue once per medication dose of a checked-in stay that has nothing logged PETCARE_DOSE_OVERDUE_MINUTES after its scheduled time ' +
      '(times are local at the location; doses before the check-in or the plan’s creation are not expected). Reads the business clock (the sandbox test clock in the sandbox).',
    schedule: { cron: '*/5 * * * *' },
    maxAttempts: 3,
    async run(ctx) {
      const { db } = ctx.store;
      const now = await businessNow(db, ctx.env, ctx.clock);
      const cutoff = now - ctx.config.doseOverdueMinutes * 60_000;
      let plans = 0;
      let overdue = 0;
      for (const plan of await plansInHouse(db)) {
        if (ctx.signal.aborted) break;
        plans++;
        if (scheduledDoses(medicationsOf(plan), plan.timezone, doseWatchStart(plan), cutoff).length === 0) continue;
        overdue += await db.transaction().execute(async (trx) => {
          const tenant = scoped(trx, tenantOf(plan));
          const status = await tenant.selectFrom('bookings').select('status').where('id', '=', plan.booking_id).executeTakeFirst();
          if (status?.status !== 'checked_in') return 0;
          let emitted = 0;
          for (const dose of await missedDoses(trx, plan, cutoff)) {
            const key = medicationKey(dose.medication);
            const inserted = await tenant
              .insertInto('boarding_dose_alerts', {
                care_plan_id: plan.id,
                medication_key: key,
                scheduled_for: dose.scheduledFor,
                tenant_id: plan.tenant_id,
                created_at: isoAt(now),
              })
              .onConflict((oc) => oc.doNothing())
              .executeTakeFirst();
            if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) continue;
            await emit(
              trx,
              'boarding.dose_overdue',
              {
                carePlanId: plan.id,
                bookingId: plan.booking_id,
                petId: plan.pet_id,
                locationId: plan.location_id,
                medication: dose.medication,
                scheduledFor: dose.scheduledFor,
              },
              plan.tenant_id,
              now,
            );
            emitted++;
          }
          return emitted;
        });
      }
      return { plans, overdue, businessNow: isoAt(now) };
    },
  };
}
