import { OneAtATime } from './one-at-a-time.js';

/** A promise and the hands that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const tooLong = () => new Error('waited too long');
/** A queue whose clock the test moves. */
function aQueue(maxWaitMs = 1_000) {
  let now = 0;
  const queue = new OneAtATime({ maxWaitMs, tooLong }, () => now);
  return { queue, advance: (ms: number) => (now += ms) };
}

describe('OneAtATime', () => {
  it('runs one key’s work one at a time, in the order it came', async () => {
    const { queue } = aQueue();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, index) =>
      queue.run('event', async () => {
        log.push(`start ${index}`);
        await gate.promise;
        log.push(`end ${index}`);
        return index;
      }),
    );
    await tick();
    expect(log).toEqual(['start 0']);
    gates[2]!.resolve();
    gates[1]!.resolve();
    await tick();
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs other keys’ work alongside', async () => {
    const { queue } = aQueue();
    const held = deferred();
    const started: string[] = [];
    const first = queue.run('a', async () => {
      started.push('a');
      await held.promise;
    });
    const second = queue.run('b', async () => {
      started.push('b');
    });
    await second;
    expect(started).toEqual(['a', 'b']);
    held.resolve();
    await first;
  });

  it('goes on after a failure, which reaches only its own caller', async () => {
    const { queue } = aQueue();
    const failing = queue.run('event', () => Promise.reject(new Error('refused')));
    const thrown = queue.run('event', () => {
      throw new Error('thrown');
    });
    const next = queue.run('event', () => Promise.resolve('next'));
    await expect(failing).rejects.toThrow('refused');
    await expect(thrown).rejects.toThrow('thrown');
    await expect(next).resolves.toBe('next');
  });

  it('forgets a key once its work is done, and only then', async () => {
    const { queue } = aQueue();
    const held = deferred();
    const first = queue.run('event', () => held.promise);
    const second = queue.run('event', () => Promise.resolve());
    expect(queue.size).toBe(1);
    held.resolve();
    await Promise.all([first, second]);
    await tick();
    expect(queue.size).toBe(0);
  });

  it('refuses work that waited longer than maxWaitMs for its turn, without running it', async () => {
    const { queue, advance } = aQueue(1_000);
    const held = deferred();
    const ran: string[] = [];
    const first = queue.run('event', async () => {
      ran.push('first');
      await held.promise;
    });
    await tick(); // first has started
    const late = queue.run('event', async () => {
      ran.push('late');
    });
    advance(600);
    const inTime = queue.run('event', async () => {
      ran.push('in time');
    });
    advance(401); // late has waited 1,001 ms, in time 401 ms
    const refused = expect(late).rejects.toThrow('waited too long');
    held.resolve();
    await first;
    await refused;
    await inTime;
    expect(ran).toEqual(['first', 'in time']);
  });

  it('runs work that finds the key idle however long it was since the last', async () => {
    const { queue, advance } = aQueue(10);
    await queue.run('event', () => Promise.resolve());
    advance(60_000);
    await expect(queue.run('event', () => Promise.resolve('ran'))).resolves.toBe('ran');
  });
});
