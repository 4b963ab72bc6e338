/** The scalegate version, recorded in every artifact's provenance. */
export const VERSION = '0.1.0';
