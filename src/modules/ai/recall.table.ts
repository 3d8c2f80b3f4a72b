/** Recall campaigns (DESIGN §13, POST /v1/ai/recall; migration create_ai_recall_campaigns). */
export interface AiRecallCampaignsTable {
  /** rcl_… */
  id: string;
  tenant_id: string;
  /** The location asked for; null = every location the caller covers. */
  location_id: string | null;
  /** JSON array of the locations covered; null = the whole tenant. Decides who may read the campaign. */
  scope_location_ids: string | null;
  /** JSON array of the vaccine names asked for; null = every vaccine. */
  vaccines: string | null;
  due_within_days: number;
  /** YYYY-MM-DD (UTC, business clock) the window was counted from. */
  today: string;
  /** YYYY-MM-DD: today + due_within_days; every latest dose due on or before it was selected. */
  due_through: string;
  recipient_count: number;
  sent: number;
  skipped: number;
  /** 1: a dry run, stored as what would have happened (its recipients would_send or skipped; nothing sent). */
  dry_run: number;
  /** Recipients a dry run would have sent to (0 for a campaign that ran). */
  would_send: number;
  created_by_client_id: string;
  created_at: string;
}

export type RecallRecipientStatus = 'sent' | 'would_send' | 'skipped';
export type RecallSkipReason = 'already_reminded' | 'no_consent' | 'no_email';

export interface AiRecallRecipientsTable {
  campaign_id: string;
  /** Order in the campaign (earliest due first). */
  position: number;
  tenant_id: string;
  pet_id: string;
  parent_id: string;
  /** The pet's location when recalled. */
  location_id: string;
  /** The latest dose (vac_…) whose due date was recalled. */
  vaccination_id: string;
  vaccine: string;
  vaccine_key: string;
  due_on: string;
  status: RecallRecipientStatus;
  reason: RecallSkipReason | null;
  notification_id: string | null;
}

export interface RecallTables {
  ai_recall_campaigns: AiRecallCampaignsTable;
  ai_recall_recipients: AiRecallRecipientsTable;
}
