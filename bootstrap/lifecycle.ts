/** The process's own state that the HTTP app reads: draining from SIGTERM on (then /readyz answers 503). */
export interface Lifecycle {
  isDraining(): boolean;
  beginDrain(): void;
}

export const createLifecycle = (): Lifecycle => {
  let draining = false;
  return {
    isDraining: () => draining,
    beginDrain: () => {
      draining = true;
    },
  };
};
