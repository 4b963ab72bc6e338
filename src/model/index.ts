export * from './artifacts.js';
export * from './config.js';
export * from './errors.js';
export * from './fingerprint.js';
export * from './histograms.js';
export * from './ids.js';
export * from './io.js';
export * from './names.js';
