import type { ModuleManifest } from '../../module-manifest.js';
import type { GroomingTables } from './grooming.table.js';
import { deleteGroomingRows } from './grooming.repository.js';
import { groomingRouteList } from './grooming.routes.js';
import { groomingErrorCodes } from './grooming.errors.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends GroomingTables {}
}

/** Grooming (DESIGN §11); no jobs of its own: memberships bill through payments' subscription-billing job. */
export const groomingModule: ModuleManifest<Parameters<typeof groomingRouteList>[0]> = {
  name: 'grooming',
  errors: groomingErrorCodes,
  sdk: {
    grooming: {
      packages: {
        create: 'createGroomingPackage',
        list: 'listGroomingPackages',
        get: 'getGroomingPackage',
        update: 'updateGroomingPackage',
      },
      appointments: {
        create: 'createGroomingAppointment',
        list: 'listGroomingAppointments',
        get: 'getGroomingAppointment',
        update: 'updateGroomingAppointment',
      },
      availability: 'getGroomingAvailability',
      assignStylist: 'assignGroomingStylist',
      memberships: {
        create: 'createGroomingMembership',
        list: 'listGroomingMemberships',
        get: 'getGroomingMembership',
        cancel: 'cancelGroomingMembership',
      },
      packageCredits: {
        buy: 'buyGroomingPackageCredits',
        list: 'listGroomingPackageCredits',
        get: 'getGroomingPackageCredits',
      },
    },
  },
  routes: (deps) => groomingRouteList(deps),
  tags: {
    Grooming:
      "Packages (pkg_ ids) priced by pet size, grooming appointments on the stylists' schedules (bkg_ ids, kind grooming), stylist assignment, availability, memberships (mbr_ ids).",
  },
  tables: ['grooming_packages', 'grooming_appointments', 'grooming_memberships', 'grooming_package_credits', 'grooming_credit_uses'],
  access: {
    grooming_packages: { location: 'location_id', nullIsGroupWide: 'a package without a location is offered at every location of the group' },
    grooming_appointments: { parent: 'bookings', key: 'booking_id' },
    grooming_memberships: { location: 'location_id' },
    grooming_package_credits: { location: 'location_id' },
    grooming_credit_uses: { parent: 'bookings', key: 'booking_id' },
  },
  reset: {
    // Before the shared bookings rows go.
    erase: {
      tables: ['grooming_credit_uses', 'grooming_appointments', 'grooming_package_credits', 'grooming_memberships', 'grooming_packages'],
      run: deleteGroomingRows,
    },
  },
};
