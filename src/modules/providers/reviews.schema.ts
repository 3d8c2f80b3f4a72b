import { Type, type Static } from '@sinclair/typebox';
import { pageQueryFields } from '../../http/paging.js';
import { NonBlankText } from '../../http/schema-fields.js';
import { ProviderId } from './providers.schema.js';

const BookingId = Type.String({ pattern: '^bkg_[a-z0-9_]{1,60}$', description: 'A completed marketplace booking (bkg_…).' });
const ParentId = Type.String({
  pattern: '^usr_[a-z0-9_]{1,60}$',
  description:
    "Optional: the pet parent the caller rates for (usr_…), checked against the booking (another parent's booking answers 404). Absent, the booking's own parent rates.",
});

export const CreateRatingSchema = Type.Object(
  {
    bookingId: BookingId,
    parentId: Type.Optional(ParentId),
    stars: Type.Integer({ minimum: 1, maximum: 5, description: 'Whole stars, 1–5.' }),
    comment: Type.Optional(Type.String({ maxLength: 5000, description: 'Up to 5,000 characters.' })),
  },
  { additionalProperties: false },
);

export const ReviewSchema = Type.Object(
  {
    id: Type.String({ description: 'Review id (rev_…).' }),
    providerId: Type.String(),
    bookingId: Type.String(),
    stars: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Union([Type.String(), Type.Null()]),
    reply: Type.Union([Type.String(), Type.Null()], { description: "The provider's answer; null until given (once)." }),
    verified: Type.Literal(true, { description: 'Always true: every review comes from a completed marketplace booking.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ListReviewsQuery = Type.Object(
  {
    ...pageQueryFields,
    providerId: Type.Optional(ProviderId),
  },
  { additionalProperties: false },
);

export const ReviewParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const ReplySchema = Type.Object({ reply: NonBlankText(5000) }, { additionalProperties: false });

export type CreateRatingInput = Static<typeof CreateRatingSchema>;
export type ReviewOut = Static<typeof ReviewSchema>;
