import type { ModuleManifest } from '../../module-manifest.js';
import type { BoardingTables } from './boarding.table.js';
import { boardingTables, eraseBoardingRows } from './boarding-erasure.repository.js';
import { carePlanDosesJob } from './care-plan-doses.job.js';
import { carePlanRoutes } from './care-plans.routes.js';
import { roomRoutes } from './rooms.routes.js';
import { stayRoutes } from './stays.routes.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { boardingErrorCodes } from './boarding.errors.js';
import { boardingEvents } from './boarding.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends BoardingTables {}
}

/** Boarding (DESIGN §10): rooms, stays (bookings of kind boarding), check-in/out, occupancy, care plans and the dose log. */
export const boardingModule: ModuleManifest<{ config: Config; clock: Clock }> = {
  name: 'boarding',
  events: boardingEvents,
  errors: boardingErrorCodes,
  sdk: {
    boarding: {
      rooms: {
        create: 'createBoardingRoom',
        list: 'listBoardingRooms',
        get: 'getBoardingRoom',
        update: 'updateBoardingRoom',
      },
      bookings: {
        create: 'createBoardingBooking',
        list: 'listBoardingBookings',
        get: 'getBoardingBooking',
        cancel: 'cancelBoardingBooking',
        noShow: 'markBoardingNoShow',
      },
      checkIn: 'checkInBoarding',
      checkOut: 'checkOutBoarding',
      occupancy: 'getBoardingOccupancy',
      carePlans: {
        create: 'createBoardingCarePlan',
        list: 'listBoardingCarePlans',
        get: 'getBoardingCarePlan',
        update: 'updateBoardingCarePlan',
        logDose: 'logBoardingDose',
        doses: 'listBoardingDoses',
      },
    },
  },
  routes: (deps) => [...roomRoutes(deps), ...stayRoutes(deps), ...carePlanRoutes(deps)],
  // `care-plan-doses` (every 5 minutes): boarding.dose_overdue once per missed dose.
  jobs: () => [carePlanDosesJob()],
  tags: {
    Boarding:
      'Rooms (room_ ids), boarding stays booked by room type (bkg_ ids, kind boarding), check-in and check-out, occupancy, care plans (cpl_ ids) and the dose log.',
  },
  tables: [...boardingTables, 'boarding_erasures', 'boarding_version'],
  access: {
    boarding_dose_alerts: { parent: 'boarding_care_plans', key: 'care_plan_id' },
    boarding_doses: { parent: 'boarding_care_plans', key: 'care_plan_id' },
    boarding_care_plans: { location: 'location_id' },
    boarding_night_totals: { location: 'location_id' },
    boarding_nights: { location: 'location_id' },
    boarding_stays: { location: 'location_id' },
    boarding_rooms: { location: 'location_id' },
    boarding_erasures: { location: null, why: "markers that let an erasure through the dose log's append-only trigger" },
    boarding_version: { system: 'a counter of writes that invalidates cached occupancy' },
  },
  reset: {
    // The dose log is append-only: the erasure row lets the DELETEs through the trigger. The shared bookings rows go later.
    erase: {
      tables: [...boardingTables, 'boarding_erasures'],
      run: (db, tenantId) => eraseBoardingRows(db, tenantId, 'sandbox reset'),
    },
  },
};
