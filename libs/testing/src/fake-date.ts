/**
 * What `jest.useFakeTimers({ now, doNotFake: ALL_BUT_DATE })` leaves real: every timer and I/O
 * callback. Only `Date` is then fake (it stands still at `now` until `jest.setSystemTime`), so a
 * test fixes "now" for the code it runs (a window, a stamp) while servers and clients work as usual.
 */
export const ALL_BUT_DATE = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;
