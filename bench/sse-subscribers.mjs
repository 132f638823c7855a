// SSE subscribers for the fan-out benchmark, in a process of their own: opens N connections
// to /events/{id}/live, and for every `townhall.stage.posted` records how long after the stage
// message was created (its createdAt, same machine clock) it arrived. Prints JSON and exits
// once every connection has seen `expected` messages (or after the timeout).
// argv: baseUrl eventId subscribers expected timeoutMs
import { request } from 'node:http';

const [baseUrl, eventId, subscribers, expected, timeoutMs] = process.argv.slice(2);
const count = Number(subscribers);
const wanted = Number(expected);
const latencies = [];
let connected = 0;
let finished = 0;
const sockets = [];

let reported = false;
function done() {
  if (reported) return;
  reported = true;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null;
  for (const socket of sockets) socket.destroy();
  // Exit once the result (every latency: the parent merges several processes) is written out.
  process.stdout.write(
    JSON.stringify({ deliveries: latencies.length, p50: at(0.5), p99: at(0.99), max: at(1), latencies }),
    () => process.exit(0),
  );
}
setTimeout(done, Number(timeoutMs)).unref();

const url = new URL(`/events/${eventId}/live`, baseUrl);
// Connections are opened a few hundred at a time, as a room fills, and one refused or reset while
// connecting is tried again after a pause, as EventSource does: 10,000 connects at once would only
// measure the listen backlog.
const OPENING_AT_ONCE = 200;
let opening = 0;
let next = 0;
let failures = 0;

function openMore() {
  while (opening < OPENING_AT_ONCE && next < count) {
    next += 1;
    opening += 1;
    subscribe(0);
  }
}

function subscribe(attempt) {
  let open = false;
  const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
    let buffer = '';
    let seen = 0;
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!open && (frame.startsWith('retry:') || frame.includes('\nretry:'))) {
          open = true;
          opening -= 1;
          if (++connected === count) process.stderr.write('ready\n');
          openMore();
        }
        const data = frame.split('\n').find((line) => line.startsWith('data:'));
        if (!data || !frame.includes('event: townhall.stage.posted')) continue;
        const event = JSON.parse(data.slice(5));
        latencies.push(Date.now() - Date.parse(event.data.createdAt));
        if (++seen === wanted && ++finished === count) done();
      }
    });
  });
  req.on('socket', (socket) => sockets.push(socket));
  req.on('error', (error) => {
    if (reported || open) return;
    failures += 1;
    if (attempt >= 10) return process.stderr.write(`subscriber error: ${error.message}\n`);
    setTimeout(() => subscribe(attempt + 1), 100 * 2 ** Math.min(attempt, 4));
  });
  req.end();
}
openMore();
process.on('exit', () => {
  if (failures > 0) process.stderr.write(`subscribers: ${failures} connects retried\n`);
});
