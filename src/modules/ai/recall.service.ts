import { addDays, utcDate } from '../../calendar-dates.js';
import { isoAt } from '../../clock.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../db/ids.js';
import { type Actor, type AccessFilter, wholeTenant } from '../../http/actor.js';
import { AppError, foundOr404 } from '../../http/errors.js';
import { emit } from '../events/index.js';
import { findLocation } from '../locations/index.js';
import { latestDosesDueThrough } from '../pets/index.js';
import { previewVaccinationReminder, remindVaccination, type ReminderOutcome } from '../reminders/index.js';
import { vaccineKey } from '../vaccinations/index.js';
import { presentRecallCampaign } from './recall.presenter.js';
import { findCampaign, insertCampaign, petHomes, recipientsOf } from './recall.repository.js';
import { maxRecallRecipients, type CreateRecallInput, type RecallCampaign } from './recall.schema.js';
import type { AiRecallCampaignsTable, AiRecallRecipientsTable, RecallSkipReason } from './recall.table.js';

const skipReasonOf: Record<Exclude<ReminderOutcome, 'notified'>, RecallSkipReason> = {
  skipped: 'already_reminded',
  no_consent: 'no_consent',
  no_email: 'no_email',
};

/**
 * A vaccination recall (DESIGN §13). Selects, among the pets now at the caller's locations (or the
 * one location asked for), each pet's latest dose per vaccine (the pets module's rule, as
 * vaccinationStatus and the reminder job read it) due on or before today + dueWithinDays — overdue
 * ones included however old — optionally only the vaccines named. Each is handed to the
 * vaccination-reminders job's own step (`remindVaccination`): once per pet + vaccine + due date
 * through the shared reminder ledger, `pet.vaccination_due`, and an email under the job's consent
 * rule. All of it commits in the request's one transaction with the campaign record and
 * `ai.recall_sent`. A dry run reads the same selection and outcomes and is stored as a campaign
 * of what would happen (recipients would_send or skipped): no ledger row, event or message.
 *
 * `today` is the UTC date of the business clock (the sandbox test clock), as the reminder job counts;
 * `now` is the service clock's instant the records carry.
 */
export async function runRecall(db: Executor, actor: Actor, input: CreateRecallInput, businessNow: number, now: number): Promise<RecallCampaign> {
  const locationIds =
    input.locationId === undefined ? actor.locationIds : [foundOr404(await findLocation(db, actor, input.locationId), 'location', input.locationId).id];
  const names = input.vaccines?.map((v) => v.trim());
  const keys = names === undefined ? null : [...new Set(names.map(vaccineKey))];
  const today = utcDate(businessNow);
  const dueThrough = addDays(today, input.dueWithinDays);
  const dryRun = input.dryRun ?? false;

  const doses = await latestDosesDueThrough(db, { tenantId: actor.tenantId, locationIds }, dueThrough, keys);
  if (doses.length > maxRecallRecipients) {
    throw new AppError(
      'recall_too_large',
      `The recall selects ${doses.length} pet and vaccine pairs; one campaign holds at most ${maxRecallRecipients}. Narrow it with locationId, vaccines or a shorter dueWithinDays.`,
      { extensions: { selected: doses.length, max: maxRecallRecipients } },
    );
  }
  const homes = await petHomes(
    db,
    wholeTenant(actor),
    doses.map((d) => d.pet_id),
  );
  const campaignId = newId('rcl');
  const recipients: AiRecallRecipientsTable[] = [];
  for (const dose of doses) {
    const home = homes.get(dose.pet_id);
    if (!home) continue; // the pet went between the two reads of this one transaction: impossible, but never send blind
    let outcome: ReminderOutcome;
    let notificationId: string | null = null;
    if (dryRun) outcome = await previewVaccinationReminder(db, dose);
    else ({ outcome, notificationId } = await remindVaccination(db, dose, today, now));
    recipients.push({
      campaign_id: campaignId,
      position: recipients.length,
      tenant_id: actor.tenantId,
      pet_id: dose.pet_id,
      parent_id: home.parentId,
      location_id: home.locationId,
      vaccination_id: dose.id,
      vaccine: dose.vaccine,
      vaccine_key: dose.vaccine_key,
      due_on: dose.due_on,
      status: outcome === 'notified' ? (dryRun ? 'would_send' : 'sent') : 'skipped',
      reason: outcome === 'notified' ? null : skipReasonOf[outcome],
      notification_id: notificationId,
    });
  }
  const sent = recipients.filter((r) => r.status === 'sent').length;
  const wouldSend = recipients.filter((r) => r.status === 'would_send').length;
  const skipped = recipients.filter((r) => r.status === 'skipped').length;
  const campaign: AiRecallCampaignsTable = {
    id: campaignId,
    tenant_id: actor.tenantId,
    location_id: input.locationId ?? null,
    scope_location_ids: locationIds === null ? null : JSON.stringify([...locationIds].sort()),
    vaccines: names === undefined ? null : JSON.stringify(names),
    due_within_days: input.dueWithinDays,
    today,
    due_through: dueThrough,
    recipient_count: recipients.length,
    sent,
    skipped,
    dry_run: dryRun ? 1 : 0,
    would_send: wouldSend,
    created_by_client_id: actor.clientId,
    created_at: isoAt(now),
  };
  await insertCampaign(db, actor, campaign, recipients);
  if (dryRun) return presentRecallCampaign(campaign, recipients);

  await emit(
    db,
    'ai.recall_sent',
    { campaignId, locationId: campaign.location_id, dueThrough, recipients: recipients.length, sent, skipped },
    actor.tenantId,
    now,
  );
  return presentRecallCampaign(campaign, recipients);
}

export async function getRecall(db: Executor, actor: AccessFilter, id: string): Promise<RecallCampaign> {
  const campaign = foundOr404(await findCampaign(db, actor, id), 'recall campaign', id);
  return presentRecallCampaign(campaign, await recipientsOf(db, wholeTenant(actor), campaign.id));
}
