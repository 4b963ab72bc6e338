// Entry point of the reference TTS container: `node dist/server.js [serve]`. SageMaker starts a
// model container as `docker run <image> serve`; the argument is accepted and ignored.
//
// The container_start marker is printed before anything else is loaded; app.js (HTTP server,
// worker pool) is imported only afterwards, so framework_init measures module loading too.
import { markStage } from './stages.js';

markStage('container_start');
const extra = process.argv.slice(2).filter((arg) => arg !== 'serve');
if (extra.length > 0) process.stderr.write(`[tts] ignoring arguments: ${extra.join(' ')}\n`);
const { main } = await import('./app.js');
await main();
