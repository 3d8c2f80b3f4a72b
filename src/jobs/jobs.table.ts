/** Tables of the job runner. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobsTables {}
