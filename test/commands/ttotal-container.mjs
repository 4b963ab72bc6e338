// A serial TTS stand-in for the ttotal tests: one request synthesised at a time, like a GPU TTS
// server, but its service time is a timer (SERVICE_MS) rather than CPU work. On a two-core test
// machine two CPU-bound reference containers plus the load generator oversubscribe the CPU, so the
// probe's p95 after a scale-out says more about the test machine than about the scale-out; with
// GPU-like (CPU-free) service time it says what it says on AWS. Same contract as
// infra/container: stage markers on stdout in order, GET /ping 503 until ready, POST /invocations
// streaming audio chunks, 503 queue_saturated at MAX_QUEUE_DEPTH, 400 on a malformed body,
// FAIL_AT_STAGE, SIGTERM drains then exits 0.
import http from 'node:http';

const started = performance.now();
const mark = (stage) => {
  process.stdout.write(
    `=== STAGE ${stage} t=${new Date().toISOString()} elapsed_s=${((performance.now() - started) / 1000).toFixed(3)} ===\n`,
  );
  if (process.env.FAIL_AT_STAGE === stage) {
    process.stderr.write(`[serial] FAIL_AT_STAGE=${stage}: exiting 1\n`);
    process.exit(1);
  }
};

const serviceMs = Number(process.env.SERVICE_MS ?? 40);
const chunks = Number(process.env.CHUNKS ?? 4);
const maxDepth = Number(process.env.MAX_QUEUE_DEPTH ?? 64);
const initMs = Number(process.env.INIT_MS ?? 300);
let inFlight = 0;
let ready = false;
let draining = false;
/** The serial worker: jobs run one after the other. */
let tail = Promise.resolve();

mark('container_start');

const synthesise = (res) =>
  new Promise((resolve) => {
    let sent = 0;
    const step = () => {
      if (res.destroyed) return resolve();
      res.write(Buffer.alloc(256, sent));
      sent += 1;
      if (sent >= chunks) {
        res.end();
        return resolve();
      }
      setTimeout(step, serviceMs / chunks);
    };
    setTimeout(step, serviceMs / chunks);
  });

const server = http.createServer((req, res) => {
  if (req.url === '/ping') {
    res.writeHead(ready ? 200 : 503, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ status: ready ? 'ready' : 'starting', in_flight: inFlight }));
    return;
  }
  const parts = [];
  req.on('data', (b) => parts.push(b));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      if (typeof body.text !== 'string') throw new Error('no text');
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'bad_request' }));
      return;
    }
    if (draining || inFlight >= maxDepth) {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'queue_saturated', queue_depth: inFlight, max_queue_depth: maxDepth }));
      return;
    }
    inFlight += 1;
    const job = tail.then(async () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'Content-Type': 'audio/wav' });
      await synthesise(res);
    });
    tail = job.finally(() => {
      inFlight -= 1;
      drained();
    });
  });
});

const drained = () => {
  if (draining && inFlight === 0) {
    process.stdout.write('[serial] drained; exiting 0\n');
    server.close();
    process.exit(0);
  }
};

process.on('SIGTERM', () => {
  draining = true;
  process.stdout.write(`[serial] SIGTERM: draining in_flight=${inFlight}\n`);
  drained();
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '127.0.0.1', () => {
  mark('framework_init');
  setTimeout(
    () => {
      mark('weights_ready');
      setTimeout(() => {
        mark('warmup_done');
        ready = true;
        mark('ready');
      }, initMs / 3);
    },
    (2 * initMs) / 3,
  );
});
