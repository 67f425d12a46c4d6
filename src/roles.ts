/** What a process does: serve HTTP, run jobs, maintain read models. The embedded default does all three. */
export type Role = 'api' | 'worker' | 'projector';
export const ALL_ROLES: readonly Role[] = ['api', 'worker', 'projector'];
