import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentRecallSummary } from './recall.presenter.js';
import { listCampaigns } from './recall.repository.js';
import {
  CreateRecallSchema,
  ListRecallsQuery,
  maxDueWithinDays,
  maxRecallRecipients,
  maxRecallVaccines,
  RecallCampaignSchema,
  RecallParams,
  RecallSummarySchema,
} from './recall.schema.js';
import { getRecall, runRecall } from './recall.service.js';

const tags = ['AI agents'];

const rules =
  "Selection: among the pets now at the caller's locations (or the one `locationId` asked for; a location the caller does not cover answers 404), " +
  "each pet's latest dose per vaccine (a newer dose replaces an older one's due date, the vaccinationStatus rule) due on or before today + dueWithinDays, " +
  'overdue doses included however old, only the `vaccines` named when given (case-insensitive). Today is the UTC date of the business clock, as the vaccination-reminders job counts. ' +
  'Sending: each recipient goes through the vaccination-reminders job’s own step, so a pet + vaccine + due date is handled once in all, whoever comes first: ' +
  'one row in the shared reminder ledger, one `pet.vaccination_due` event and, if the parent consented to reminders and has an email address (the job’s consent rule), ' +
  'one `vaccination_reminder` email queued in the notifications outbox (GET /v1/notifications). A pet the job already reminded is skipped (already_reminded), ' +
  'and the job does not remind a recalled pet again; a parent without consent or email is skipped too and recorded as decided (not asked again for that due date, as the job does). ' +
  '`sent` counts messages queued by this call, `skipped` the rest. ';

export function recallRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/ai/recall',
      operationId: 'createRecall',
      emits: ['pet.vaccination_due', 'ai.recall_sent'],
      summary: 'Run a vaccination recall campaign',
      description:
        'Needs scope `ai` (roles admin and doctor hold it). ' +
        rules +
        `dueWithinDays is 0–${maxDueWithinDays}; at most ${maxRecallVaccines} vaccines; bad input answers 400 and changes nothing. ` +
        `A selection of more than ${maxRecallRecipients} pet and vaccine pairs answers 422 recall_too_large (with selected and max) and sends nothing, dry run or not: narrow it by location, vaccines or window. ` +
        'Answers 201 with the stored campaign (rcl_…, readable at GET /v1/ai/recall/{id} and listed); emits `ai.recall_sent` with the totals. ' +
        'A dry run is stored too (dryRun true, an id): the recipients and what would happen to each (status would_send or skipped, counted in wouldSend and skipped), ' +
        'with nothing sent, no reminder recorded and no event, so a later recall or the reminder job still handles them. ' +
        'Everything commits in one transaction, so parallel recalls send one message per pet, vaccine and due date.',
      tags,
      access: { scope: 'ai' },
      body: CreateRecallSchema,
      response: { status: 201, description: 'The stored campaign (a dry run too)', schema: RecallCampaignSchema },
      errors: ['not_found', 'recall_too_large'],
      handler: async ({ db, actor, body }) => ({ body: await runRecall(db, actor, body, await businessNow(db, actor.env, deps.clock), deps.clock.now()) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/recall',
      operationId: 'listRecalls',
      summary: 'List recall campaigns',
      description:
        'Needs scope `ai.read`. Stored campaigns, dry runs included (dryRun true), newest first, with their totals; the recipients are at GET /v1/ai/recall/{id}. ' +
        'A location-scoped caller sees only campaigns that covered nothing beyond its own locations.',
      tags,
      access: { scope: 'ai.read' },
      query: ListRecallsQuery,
      response: { status: 200, description: 'A page of campaigns', schema: pageSchema(RecallSummarySchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listCampaigns(db, actor, page), page, presentRecallSummary) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ai/recall/:id',
      operationId: 'getRecall',
      summary: 'Get a recall campaign',
      description:
        'Needs scope `ai.read`. The campaign as it ran, with each recipient’s status (sent, or would_send in a dry run, or skipped with the reason) and queued message id. ' +
        'A location-scoped caller sees only campaigns that covered nothing beyond its own locations; any other answers 404.',
      tags,
      access: { scope: 'ai.read' },
      params: RecallParams,
      response: { status: 200, description: 'The campaign', schema: RecallCampaignSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: await getRecall(db, actor, params.id) }),
    }),
  ];
}
