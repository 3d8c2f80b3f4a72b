/** Tables of the notifications module (rows follow the conventions at the top of src/db/database.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface NotificationsTables {}
