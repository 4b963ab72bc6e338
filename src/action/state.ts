/** State the main step saves for the post step (`STATE_<name>`): which command ran, and where journals live. */
export const STATE_COMMAND = 'command';
export const STATE_DIR = 'state-dir';

/** The environment variable the runner gives the post step for a saved state `name`. */
export const stateVariable = (name: string): string => `STATE_${name}`;
