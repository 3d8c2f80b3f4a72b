import { sql } from 'kysely';
import { scoped } from '../../db/access-policy.js';
import type { Executor } from '../../db/database.js';
import { inList } from '../../db/in-list.js';
import type { AccessFilter } from '../../http/actor.js';
import { pageQuery, type PageRequest } from '../../http/paging.js';
import type { AiRecallCampaignsTable, AiRecallRecipientsTable } from './recall.table.js';

/** Rows per insert statement (13 columns each: well under SQLite's parameter limit). */
const insertBatch = 500;

export async function insertCampaign(
  db: Executor,
  access: AccessFilter,
  campaign: AiRecallCampaignsTable,
  recipients: readonly AiRecallRecipientsTable[],
): Promise<void> {
  const tenant = scoped(db, access);
  await tenant.insert('ai_recall_campaigns', campaign);
  for (let i = 0; i < recipients.length; i += insertBatch) await tenant.insert('ai_recall_recipients', recipients.slice(i, i + insertBatch));
}

/**
 * The access policy, on top of the tenant `scoped()` adds (campaigns are tenant-wide in the
 * manifest): a tenant-wide caller sees every campaign of the tenant; a location-scoped caller only
 * campaigns that covered nothing beyond its own locations (so a campaign run tenant-wide, which
 * names pets everywhere, is not shown to it).
 */
function visible(db: Executor, actor: AccessFilter) {
  let query = scoped(db, actor).selectFrom('ai_recall_campaigns').selectAll();
  if (actor.locationIds !== null) {
    const mine = inList(actor.locationIds);
    query = query
      .where('scope_location_ids', 'is not', null)
      .where(sql<boolean>`not exists (select 1 from json_each(ai_recall_campaigns.scope_location_ids) where json_each.value not in (${sql.join(mine)}))`);
  }
  return query;
}

export async function findCampaign(db: Executor, actor: AccessFilter, id: string): Promise<AiRecallCampaignsTable | null> {
  return (await visible(db, actor).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Campaigns the caller may read, newest first. */
export async function listCampaigns(db: Executor, actor: AccessFilter, page: PageRequest): Promise<AiRecallCampaignsTable[]> {
  return pageQuery(visible(db, actor), page).execute();
}

/** The recipients of a campaign the caller has already been shown to see. */
export async function recipientsOf(db: Executor, access: AccessFilter, campaignId: string): Promise<AiRecallRecipientsTable[]> {
  return scoped(db, access).selectFrom('ai_recall_recipients').selectAll().where('campaign_id', '=', campaignId).orderBy('position').execute();
}

/** Parent and current location of each pet (the caller already selected these pets through its access). */
export async function petHomes(db: Executor, access: AccessFilter, petIds: readonly string[]): Promise<Map<string, { parentId: string; locationId: string }>> {
  const homes = new Map<string, { parentId: string; locationId: string }>();
  const ids = [...new Set(petIds)];
  for (let i = 0; i < ids.length; i += insertBatch) {
    const rows = await scoped(db, access)
      .selectFrom('pets')
      .select(['id', 'owner_id', 'location_id'])
      .where('id', 'in', ids.slice(i, i + insertBatch))
      .execute();
    for (const row of rows) homes.set(row.id, { parentId: row.owner_id, locationId: row.location_id });
  }
  return homes;
}

/** Every recall campaign of a tenant goes (sandbox reset only): recipients first, they reference their campaign. */
export async function deleteTenantCampaigns(db: Executor, tenantId: string): Promise<void> {
  const tenant = scoped(db, { tenantId, locationIds: null });
  await tenant.deleteFrom('ai_recall_recipients').execute();
  await tenant.deleteFrom('ai_recall_campaigns').execute();
}
