import { attendeesOf, type PresenceSpan } from './attendees.js';

const T0 = Date.parse('2031-03-04T19:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1_000);
const iso = (seconds: number) => at(seconds).toISOString();
const span = (agentId: string, from: number, to: number): PresenceSpan => ({
  agentId,
  startedAt: at(from),
  endedAt: at(to),
});
const window = { from: at(100), to: at(400) };

describe('attendeesOf', () => {
  it('clips each span to the live window and counts overlapping spans once', () => {
    const attendees = attendeesOf(
      [span('ada', 50, 160), span('ada', 150, 200), span('ada', 300, 310), span('ada', 305, 500)],
      window,
    );
    // 100..200 and 300..400: 200 s
    expect(attendees).toEqual([
      { agentId: 'ada', minutes: 3.333, firstSeenAt: iso(100), lastSeenAt: iso(400) },
    ]);
  });

  it('keeps spans apart when a gap separates them, and the minutes to the second (rounded to 0.001 minute)', () => {
    expect(attendeesOf([span('ada', 100, 101.5), span('ada', 200, 200.25)], window)).toEqual([
      { agentId: 'ada', minutes: 0.029, firstSeenAt: iso(100), lastSeenAt: iso(200.25) },
    ]);
  });

  it('counts a write inside the window at 0 minutes, and nothing that only touches the window or lies outside it', () => {
    expect(
      attendeesOf(
        [
          span('ada', 250, 250), // a write while live
          span('bob', 99, 99), // a write before
          span('bob', 400, 450), // a stream from the end on
          span('bob', 10, 100), // a stream up to the start
          span('cyd', 400, 400), // a write at the very end
        ],
        window,
      ),
    ).toEqual([
      { agentId: 'ada', minutes: 0, firstSeenAt: iso(250), lastSeenAt: iso(250) },
      { agentId: 'cyd', minutes: 0, firstSeenAt: iso(400), lastSeenAt: iso(400) },
    ]);
  });

  it('puts the most minutes first, then orders by agentId', () => {
    const attendees = attendeesOf(
      [span('cyd', 100, 130), span('bob', 100, 160), span('ada', 100, 130), span('dan', 200, 200)],
      window,
    );
    expect(attendees.map(({ agentId, minutes }) => [agentId, minutes])).toEqual([
      ['bob', 1],
      ['ada', 0.5],
      ['cyd', 0.5],
      ['dan', 0],
    ]);
  });

  it('has nobody for an empty window or no spans', () => {
    expect(attendeesOf([], window)).toEqual([]);
    expect(attendeesOf([span('ada', 100, 200)], { from: at(300), to: at(300) })).toEqual([]);
  });
});
