import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { LocationId } from '../locations/index.js';

/** Longest recall window: a year ahead (overdue doses are always in the window). */
export const maxDueWithinDays = 365;
/** Vaccines one campaign may name. */
export const maxRecallVaccines = 20;
/**
 * Recipients one campaign may hold: it runs, writes and answers them in one request and one
 * transaction, so a tenant-wide recall over every pet is refused (422 recall_too_large) rather
 * than holding the database for seconds and answering megabytes; narrow it by location, vaccine or window.
 */
export const maxRecallRecipients = 2000;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const DateOnly = (description: string) => Type.String({ format: 'date', description: `${description} (YYYY-MM-DD).` });

export const CreateRecallSchema = Type.Object(
  {
    locationId: Type.Optional(
      Type.String({
        pattern: LocationId.pattern,
        maxLength: 100,
        description: "Only pets now at this location (loc_…, one of the caller's; another answers 404). Default: every location the caller covers.",
      }),
    ),
    vaccines: Type.Optional(
      Type.Array(NonBlankText(200), {
        minItems: 1,
        maxItems: maxRecallVaccines,
        description: 'Vaccine names, matched case-insensitively as vaccinations match them. Default: every vaccine.',
      }),
    ),
    dueWithinDays: Type.Integer({
      minimum: 0,
      maximum: maxDueWithinDays,
      description: "Selects each pet's latest dose per vaccine due on or before today + dueWithinDays, overdue ones included (0: due today or overdue).",
    }),
    dryRun: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Store the campaign as what would happen to each recipient (would_send or skipped), sending nothing and recording no reminder (201, dryRun true, an id like any campaign).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const recipientStatuses = ['sent', 'would_send', 'skipped'] as const;
export const skipReasons = ['already_reminded', 'no_consent', 'no_email'] as const;

export const RecallRecipientSchema = Type.Object(
  {
    parentId: Type.String({ description: "The pet's parent (usr_…), who is written to." }),
    petId: Type.String(),
    vaccine: Type.String({ description: 'The vaccine as recorded on the latest dose.' }),
    dueOn: Type.String({ format: 'date', description: "The latest dose's due date (may be past: overdue)." }),
    vaccinationId: Type.String({ description: 'The latest dose (vac_…) whose due date is recalled.' }),
    locationId: Type.String({ description: "The pet's location." }),
    status: Type.Union(
      recipientStatuses.map((s) => Type.Literal(s)),
      { description: 'sent: a message was queued by this campaign; would_send: a dry run would queue one; skipped: see reason.' },
    ),
    reason: Nullable(
      Type.Union(
        skipReasons.map((s) => Type.Literal(s)),
        {
          description:
            'Why nothing is sent: already_reminded (this pet, vaccine and due date were handled before, by the vaccination-reminders job or an earlier recall), ' +
            "no_consent (the parent did not consent to reminders), no_email (no address). The reminder job's consent rule.",
        },
      ),
    ),
    notificationId: Nullable(Type.String({ description: 'The queued message (ntf_…) when sent.' })),
  },
  { additionalProperties: false },
);

export const RecallCampaignSchema = Type.Object(
  {
    id: Type.String({ description: 'Campaign id (rcl_…); a dry run is stored too.' }),
    dryRun: Type.Boolean({ description: 'A dry run: recipients would_send or skipped, nothing sent.' }),
    locationId: Nullable(Type.String({ description: 'The location asked for; null: every location the caller covers.' })),
    vaccines: Nullable(Type.Array(Type.String(), { description: 'The vaccines asked for; null: every vaccine.' })),
    dueWithinDays: Type.Integer(),
    today: DateOnly('The day the window counts from (UTC date of the business clock, as the reminder job counts)'),
    dueThrough: DateOnly('today + dueWithinDays: the last due date selected'),
    recipients: Type.Array(RecallRecipientSchema, { description: 'Earliest due first: one per pet and vaccine.' }),
    sent: Type.Integer({ description: 'Messages queued by this campaign (0 in a dry run).' }),
    wouldSend: Type.Integer({ description: 'Messages a dry run would queue (0 when not a dry run).' }),
    skipped: Type.Integer({ description: 'Recipients already reminded or without consent or an email address.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/** A campaign in a list: its totals without the recipients (GET /v1/ai/recall/{id} has them). */
export const RecallSummarySchema = Type.Object(
  {
    id: Type.String({ description: 'Campaign id (rcl_…).' }),
    dryRun: Type.Boolean({ description: 'A dry run (nothing was sent).' }),
    locationId: Nullable(Type.String()),
    vaccines: Nullable(Type.Array(Type.String())),
    dueWithinDays: Type.Integer(),
    today: Type.String({ format: 'date' }),
    dueThrough: Type.String({ format: 'date' }),
    recipientCount: Type.Integer(),
    sent: Type.Integer(),
    wouldSend: Type.Integer({ description: 'Messages a dry run would have queued (0 when not a dry run).' }),
    skipped: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ListRecallsQuery = Type.Object({ ...pageQueryFields }, { additionalProperties: false });

export const RecallParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Campaign id (rcl_…).' }) });

export type CreateRecallInput = Static<typeof CreateRecallSchema>;
export type RecallCampaign = Static<typeof RecallCampaignSchema>;
export type RecallRecipient = Static<typeof RecallRecipientSchema>;
export type RecallSummary = Static<typeof RecallSummarySchema>;
