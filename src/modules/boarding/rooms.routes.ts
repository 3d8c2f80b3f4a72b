import type { Clock } from '../../clock.js';
import { pageRequest, pageSchema, toPage } from '../../http/paging.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { businessNow } from '../business-clock/index.js';
import { presentRoom } from './rooms.presenter.js';
import { listRooms } from './rooms.repository.js';
import { CreateRoomSchema, ListRoomsQuery, RoomParams, RoomSchema, UpdateRoomSchema } from './rooms.schema.js';
import { createRoom, getRoom, patchRoom } from './rooms.service.js';

const tags = ['Boarding'];
const access = 'Scope `bookings` to write, `bookings.read` to read; a location-scoped client sees the rooms of its locations only (others answer 404). ';

export function roomRoutes(deps: { clock: Clock }): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/boarding/rooms',
      operationId: 'createBoardingRoom',
      summary: 'Create a boarding room',
      description:
        access +
        'A unit of a room type at a location: its capacity (pets at once), the species it takes and its nightly rate in the location’s currency. ' +
        'The capacity of a room type on a night is the sum of the capacities of its active rooms that take the pet’s species.',
      tags,
      access: { scope: 'bookings' },
      body: CreateRoomSchema,
      response: { status: 201, description: 'The new room', schema: RoomSchema },
      errors: ['resource_missing'],
      handler: async ({ db, actor, body }) => ({ body: presentRoom(await createRoom(db, actor, body, await businessNow(db, actor.env, deps.clock))) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/rooms',
      operationId: 'listBoardingRooms',
      summary: 'List boarding rooms',
      description: access + 'Newest first; filters locationId, roomType, active.',
      tags,
      access: { scope: 'bookings.read' },
      query: ListRoomsQuery,
      response: { status: 200, description: 'A page of rooms', schema: pageSchema(RoomSchema) },
      errors: ['invalid_cursor'],
      handler: async ({ db, actor, query }) => {
        const page = pageRequest(query);
        return { body: toPage(await listRooms(db, actor, page, query), page, presentRoom) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/boarding/rooms/:id',
      operationId: 'getBoardingRoom',
      summary: 'Get a boarding room',
      description: access,
      tags,
      access: { scope: 'bookings.read' },
      params: RoomParams,
      response: { status: 200, description: 'The room', schema: RoomSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params }) => ({ body: presentRoom(await getRoom(db, actor, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/boarding/rooms/:id',
      operationId: 'updateBoardingRoom',
      summary: 'Rename, re-price, resize or (de)activate a room',
      description:
        access +
        'Stays already booked keep their place and amount; a new nightlyRate prices new bookings (at the room type’s lowest active rate) and check-outs of stays in this room. ' +
        'A smaller capacity or active: false only refuses bookings and check-ins that no longer fit.',
      tags,
      access: { scope: 'bookings' },
      params: RoomParams,
      body: UpdateRoomSchema,
      response: { status: 200, description: 'The updated room', schema: RoomSchema },
      errors: ['not_found'],
      handler: async ({ db, actor, params, body }) => ({
        body: presentRoom(await patchRoom(db, actor, params.id, body, await businessNow(db, actor.env, deps.clock))),
      }),
    }),
  ];
}
