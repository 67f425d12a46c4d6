/** What a projection runner reports about itself, for health and for the rebuild command. */

export type RunnerState =
  | 'starting'
  | 'catching_up'
  | 'live'
  | 'building'
  | 'standby'
  /** A newer version of the projection is active: this process must neither run nor serve it. */
  | 'outdated'
  | 'failed'
  | 'stopped';

export interface ProjectionStatus {
  name: string;
  version: number;
  generation: number | null;
  state: RunnerState;
  position: number;
  error: string | null;
}
